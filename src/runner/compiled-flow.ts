import { compileInput, type CompiledInput } from '../scenario/input-template.js';
import type { Flow, Step } from '../scenario/scenario.js';
import { stepKind, type StepBase } from '../steps/index.js';

/** A flow whose input templates are compiled once, so each arrival only renders. */
export interface CompiledFlow {
  name: string;
  weight: number;
  steps: readonly Step[];
  inputs: ReadonlyMap<object, CompiledInput>;
}

/** Each step kind says which template it renders and which steps it nests (src/steps/). */
function collect(steps: readonly StepBase[], into: Map<StepBase, CompiledInput>): void {
  for (const step of steps) {
    const kind = stepKind(step.kind);
    const template = kind?.template?.(step);
    if (template !== undefined) into.set(step, compileInput(template));
    const children = kind?.children?.(step);
    if (children !== undefined) collect(children, into);
  }
}

export function compileFlows(flows: readonly Flow[]): CompiledFlow[] {
  return flows.map((f) => {
    const inputs = new Map<StepBase, CompiledInput>();
    collect(f.steps, inputs);
    return { name: f.name, weight: f.weight, steps: f.steps, inputs };
  });
}

/** Picks a flow by weight from a uniform [0, 1) draw. */
export class FlowPicker {
  private readonly cumulative: number[] = [];
  private readonly total: number;

  constructor(private readonly flows: readonly CompiledFlow[]) {
    let sum = 0;
    for (const f of flows) {
      sum += f.weight;
      this.cumulative.push(sum);
    }
    this.total = sum;
  }

  pick(u: number): CompiledFlow {
    const x = u * this.total;
    for (let i = 0; i < this.cumulative.length; i++) {
      if (x < (this.cumulative[i] ?? 0)) return this.flows[i] as CompiledFlow;
    }
    return this.flows[this.flows.length - 1] as CompiledFlow;
  }
}

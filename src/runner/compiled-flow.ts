import { compileInput, type CompiledInput } from '../scenario/input-template.js';
import type { Flow, Step } from '../scenario/scenario.js';

/** A flow whose input templates are compiled once, so each arrival only renders. */
export interface CompiledFlow {
  name: string;
  weight: number;
  steps: readonly Step[];
  inputs: Map<Step, CompiledInput>;
}

function collect(steps: readonly Step[], into: Map<Step, CompiledInput>): void {
  for (const step of steps) {
    if (step.kind === 'run' || step.kind === 'runsync') into.set(step, compileInput(step.input));
    if (step.kind === 'openai' && step.body !== undefined) into.set(step, compileInput(step.body));
    if (step.kind === 'loop') collect(step.steps, into);
  }
}

export function compileFlows(flows: readonly Flow[]): CompiledFlow[] {
  return flows.map((f) => {
    const inputs = new Map<Step, CompiledInput>();
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

import type { ServerResponse } from 'node:http';
import { isFinalStatus } from '../../core/job-status.js';
import type { EmulatorCore } from '../emulator-core.js';
import type { Endpoint } from '../endpoint.js';
import type { Job } from '../job.js';
import { openAiBatchEnds, tokenAtMs, tokenText } from '../llm-run.js';
import { openAiError, sendOpenAiError } from './openai-reply.js';
import { sendJson } from './reply.js';

export interface OpenAiRequest {
  kind: 'chat' | 'text';
  model: string;
  /** Completion tokens to generate (max_tokens, capped). */
  tokens: number;
  promptTokens: number;
  stream: boolean;
  /** `stream_options.include_usage`: a last event with the usage (sent by the model-like worker). */
  includeUsage: boolean;
}

const noop = (): void => undefined;

/**
 * One /openai/* completion: a job on the endpoint's queue and workers, answered when it ends, or
 * with `stream: true` as server-sent events whose tokens are spread evenly over the job's
 * execution time (the handler profile's duration), each in a write of its own, or, for a job the
 * model-like worker runs, each token at the time it is generated (llm-run.ts), its events written
 * in the worker's batches: one write a batch, its events' raw SSE text concatenated, when the
 * batch's last token is out (vLLM's RAW_OPENAI_OUTPUT; the profile's openaiBatching: false gives
 * one write a token). The client closing the connection cancels the job. `done` runs exactly
 * once, when the answer is over (it frees the concurrency slot).
 */
export class OpenAiAnswer {
  private finished = false;
  private emitted = 0;
  /** Tokens written by the end of each write (openAiBatchEnds), for the model-like worker's jobs. */
  private ends: readonly number[] = [];
  /** The write of `ends` under way: the first whose end is past `emitted`. */
  private batch = 0;
  private stopWaiting: () => void = noop;
  private stopStart: () => void = noop;
  private cancelTimer: () => void = noop;
  private readonly id: string;
  private readonly created: number;

  constructor(
    private readonly core: EmulatorCore,
    private readonly ep: Endpoint,
    private readonly job: Job,
    private readonly res: ServerResponse,
    private readonly o: OpenAiRequest,
    private readonly done: () => void,
  ) {
    this.id = `${o.kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${job.id}`;
    // Seconds on the emulator's clock: the injected clock is the only time the emulator knows.
    this.created = Math.floor(core.now() / 1000);
  }

  /**
   * A model-like worker (profile llm) always generates max_tokens, so vLLM and OpenAI say the
   * length cut it; the duration-profile handler's answers are whole ("stop").
   */
  private finishReason(): 'length' | 'stop' {
    return this.job.llm !== undefined ? 'length' : 'stop';
  }

  start(): void {
    this.res.on('close', this.onClose);
    if (this.o.stream) {
      this.res.writeHead(this.core.policy.answerStatus(200, 'queue'), {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
      });
      this.res.flushHeaders();
    }
    if (isFinalStatus(this.job.status)) {
      this.end(this.job);
      return;
    }
    this.stopWaiting = this.ep.wait(this.job, (j) => this.end(j));
    if (!this.o.stream) return;
    if (this.job.status === 'IN_PROGRESS') this.started();
    else this.stopStart = this.ep.onStart(this.job, () => this.started());
  }

  /** A worker took the job: the role event, then the tokens over its execution time. */
  private started(): void {
    this.event(this.chunk(this.o.kind === 'chat' ? { role: 'assistant', content: '' } : '', null));
    if (this.job.llm !== undefined) this.ends = openAiBatchEnds(this.job.llm);
    this.scheduleNext();
  }

  /** The next write, due when its last token is. */
  private scheduleNext(): void {
    if (this.finished || this.emitted >= this.o.tokens) return;
    const llm = this.job.llm;
    const upTo = this.nextEnd();
    const due =
      this.job.startedAt +
      (llm === undefined ? Math.round((this.job.durationMs * upTo) / this.o.tokens) : tokenAtMs(llm, upTo));
    this.cancelTimer = this.core.timers.schedule(Math.max(0, due - this.core.now()), () => {
      if (this.finished || this.job.status !== 'IN_PROGRESS') return;
      this.write(upTo);
      this.scheduleNext();
    });
  }

  /** Tokens written once the next write is out: its batch's end, or one more token. */
  private nextEnd(): number {
    const ends = this.ends;
    while (this.batch < ends.length && (ends[this.batch] ?? 0) <= this.emitted) this.batch++;
    return Math.min(this.o.tokens, ends[this.batch] ?? this.emitted + 1);
  }

  /** The token events up to token `upTo`, in one write. */
  private write(upTo: number): void {
    let text = '';
    while (this.emitted < upTo) text += this.tokenEvent();
    if (text !== '' && !this.res.destroyed) this.res.write(text);
  }

  /** The next token's event; each token keeps an event of its own, whatever write carries it. */
  private tokenEvent(): string {
    const text = tokenText(this.emitted);
    this.emitted++;
    const chunk = this.chunk(this.o.kind === 'chat' ? { content: text } : text, null);
    return `data: ${this.core.policy.tokenEvent(this.emitted, JSON.stringify(chunk))}\n\n`;
  }

  private end(j: Job | undefined): void {
    if (this.finished) return;
    this.finish();
    const completed = j !== undefined && j.status === 'COMPLETED';
    const failure =
      j === undefined
        ? 'the request was deleted (ttl expired) before it finished'
        : `the request ended ${j.status}${j.error === undefined ? '' : `: ${j.error}`}`;
    const policy = this.core.policy;
    if (!this.o.stream) {
      if (completed) sendJson(this.res, policy.answerStatus(200, 'queue'), this.completion());
      else sendOpenAiError(this.res, policy, 500, failure, { code: 'server_error' });
    } else {
      const close = policy.streamEnd();
      if (completed) {
        // Tokens not yet written (the job's end, its timer set first, fires before the last write's
        // at the same time): in their writes still.
        while (this.emitted < this.o.tokens) this.write(this.nextEnd());
        this.event(this.chunk(this.o.kind === 'chat' ? {} : '', this.finishReason()));
        if (this.o.includeUsage && this.job.llm !== undefined)
          this.event({ ...this.chunk('', null), choices: [], usage: this.usage() });
      } else {
        this.event(openAiError(500, failure, { code: 'server_error' }));
      }
      if (close.done) this.res.write('data: [DONE]\n\n');
      if (close.chunkAfter) this.event(this.chunk(this.o.kind === 'chat' ? { content: '' } : '', 'stop'));
      this.res.end();
    }
    this.done();
  }

  /** The client went away before the answer was over: the job is cancelled, as the service would. */
  private readonly onClose = (): void => {
    if (this.finished) return;
    this.finish();
    if (!this.job.gone && !isFinalStatus(this.job.status)) this.ep.cancel(this.job);
    this.done();
  };

  private finish(): void {
    this.finished = true;
    this.stopWaiting();
    this.stopStart();
    this.cancelTimer();
    this.res.off('close', this.onClose);
  }

  private event(body: unknown): void {
    if (!this.res.destroyed) this.res.write(`data: ${JSON.stringify(body)}\n\n`);
  }

  private chunk(delta: Record<string, unknown> | string, finish: string | null): Record<string, unknown> {
    const choice =
      typeof delta === 'string'
        ? { index: 0, text: delta, finish_reason: finish }
        : { index: 0, delta, finish_reason: finish };
    return {
      id: this.id,
      object: this.o.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion',
      created: this.created,
      model: this.o.model,
      choices: [choice],
    };
  }

  private completion(): Record<string, unknown> {
    let text = '';
    for (let i = 0; i < this.o.tokens; i++) text += tokenText(i);
    const choice =
      this.o.kind === 'chat'
        ? { index: 0, message: { role: 'assistant', content: text }, finish_reason: this.finishReason() }
        : { index: 0, text, finish_reason: this.finishReason() };
    return {
      id: this.id,
      object: this.o.kind === 'chat' ? 'chat.completion' : 'text_completion',
      created: this.created,
      model: this.o.model,
      choices: [choice],
      usage: this.usage(),
    };
  }

  /** The counts the model-like worker ran the job with, else the request's. */
  private usage(): Record<string, number> {
    const prompt = this.job.llm?.promptTokens ?? this.o.promptTokens;
    const completion = this.job.llm?.outputTokens ?? this.o.tokens;
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }
}

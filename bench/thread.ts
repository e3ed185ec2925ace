// `npm run bench -- thread`: the shared thread model (src/shared/acp-thread) on a day-long thread. Prints:
//   thread.fold_new_tool_call: N ms     a batch (one new tool call and a message chunk) folded into a thread of
//                                       25,000 tool calls and 25,000 messages, median of 200; the live session
//                                       and every open view fold such a batch whenever an agent starts a tool call
//   thread.fold_new_tool_call_ratio: X  the same over a thread of 100 tool calls (the cost a thread's length adds)
// '#': text-only batches on both.
import { applyEvents, createThread, type ThreadEvent, type ThreadState } from '../src/shared/acp-thread';
import { median } from './support/stats';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 50 : 200;
const up = (update: unknown): ThreadEvent => ({ type: 'update', update: update as never });
const tool = (id: string): ThreadEvent => up({ sessionUpdate: 'tool_call', toolCallId: id, title: `Read ${id}`, kind: 'read', status: 'completed' });
const chunk = (text: string): ThreadEvent => up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });

function thread(toolCalls: number): ThreadState {
  const events: ThreadEvent[] = [{ type: 'prompt', promptId: 'p', content: [{ type: 'text', text: 'go' }] }];
  for (let i = 0; i < toolCalls; i++) events.push(tool(`call_${i}_${'x'.repeat(20)}`), chunk(`read file ${i}`));
  return applyEvents(createThread(), events);
}

/** Median ms of folding `batch(i)` into the thread, batch after batch. */
function foldTime(start: ThreadState, batch: (i: number) => ThreadEvent[]): number {
  let s = start;
  for (let i = 0; i < 20; i++) s = applyEvents(s, batch(-i - 1)); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const events = batch(i);
    const t0 = performance.now();
    s = applyEvents(s, events);
    times.push(performance.now() - t0);
  }
  return median(times);
}

const long = thread(25_000);
const short = thread(100);
const newCall = (i: number) => [tool(`new_${i}`), chunk(`new ${i}`)];
const text = (i: number) => [chunk(` more ${i}`)];
const longMs = foldTime(long, newCall);
const shortMs = foldTime(short, newCall);
console.log(`# text only: ${foldTime(long, text).toFixed(3)} ms a batch at 25,000 tool calls, ${foldTime(short, text).toFixed(3)} ms at 100 (the entries array is copied once a batch)`);
console.log(`thread.fold_new_tool_call: ${longMs.toFixed(2)} ms`);
console.log(`thread.fold_new_tool_call_ratio: ${(longMs / shortMs).toFixed(1)}`);
process.exit(0);

/**
 * bench/perf-owners.ts: a perf sample goes to its innermost JavaScript function's file, or to the
 * native family (nghttp2, TLS, ...) it was in before any JavaScript frame.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { owners, ownerOf, stacks } from '../../bench/perf-owners.js';

const script = [
  ' 7415 27292.148821: ',
  '\t         1501248 Builtins_ArrayPrototypePush (/usr/bin/node)',
  '\t    7f64729f9a7e JS:^inQuantum file:///work/x/dist/src/util/loop-quantum.js:41:26 (/tmp/perf-7415.map)',
  '\t    7f6472b35184 JS:*parserOnIncoming node:_http_server:1026:26 (/tmp/perf-7415.map)',
  '',
  ' 7415 27292.149339: ',
  '\t          a1b2c3 nghttp2_session_mem_recv2 (/usr/bin/node)',
  '\t          a1b2c4 node::http2::Http2Session::OnStreamRead (/usr/bin/node)',
  '\t    7f6472b0f15b JS:*onStreamRead node:internal/stream_base_commons:168:22 (/tmp/perf-7415.map)',
  '',
  ' 7415 27292.149839: ',
  '\t          d1 finish_task_switch.isra.0 ([kernel.kallsyms])',
  '\t          d2 uv__io_poll (/usr/bin/node)',
  '',
  ' 7415 27292.150339: ',
  '\t         1501248 Builtins_LoadIC (/usr/bin/node)',
  '\t    7f64729f9a7e JS:*applyNow file:///work/x/dist/src/registry/watch-cache/cache.js:232:13 (/tmp/perf-7415.map)',
  '',
].join('\n');

test('a perf script splits into its stacks, leaf first', () => {
  const all = [...stacks(script)];
  assert.equal(all.length, 4);
  assert.match(all[1][0], /nghttp2_session_mem_recv2/);
});

test('each sample goes to its innermost JavaScript file or the native family below it', () => {
  const [js, h2, other] = [...stacks(script)];
  assert.equal(ownerOf(js), 'JS src/util/loop-quantum.js');
  assert.equal(ownerOf(h2), 'http2 native (nghttp2, node::http2)');
  assert.equal(ownerOf(other), 'other: finish_task_switch.isra.0');
  assert.deepEqual([...owners(script)].sort(), [
    ['JS src/registry/watch-cache/cache.js', 1], ['JS src/util/loop-quantum.js', 1],
    ['http2 native (nghttp2, node::http2)', 1], ['other: finish_task_switch.isra.0', 1],
  ].sort());
});

test('V8 compiling (TurboFan on a background thread, the JS parser) is its own family, not the HTTP/1 parser', () => {
  const compiler = [
    ' 7420 27292.151000: ',
    '\t          e1 malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)',
    '\t          e2 v8::internal::compiler::GraphReducer::ReduceTop (/usr/bin/node)',
    '\t          e3 v8::internal::compiler::PipelineImpl::OptimizeGraph (/usr/bin/node)',
    '',
    ' 7415 27292.151500: ',
    '\t          f1 v8::internal::Parser::ParseFunction (/usr/bin/node)',
    '\t          f2 v8::internal::Compiler::Compile (/usr/bin/node)',
    '',
    ' 7415 27292.152000: ',
    '\t          f3 llhttp__internal__run (/usr/bin/node)',
    '\t          f4 node::(anonymous namespace)::Parser::Execute (/usr/bin/node)',
    '',
  ].join('\n');
  const [turbofan, parser, llhttp] = [...stacks(compiler)];
  assert.equal(ownerOf(turbofan), 'V8 compilers (TurboFan, Maglev, Sparkplug, the JS parser)');
  assert.equal(ownerOf(parser), 'V8 compilers (TurboFan, Maglev, Sparkplug, the JS parser)');
  assert.equal(ownerOf(llhttp), 'HTTP/1 parser');
});

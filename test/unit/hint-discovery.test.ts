import { describe, expect, it } from 'vitest';
import { capabilityWords } from '../../src/checks/json.ts';
import { catalogHints } from '../../src/runtime/worker.ts';

describe('model hints discovered from a catalog (its capability field names are not shown)', () => {
  it('takes the words an entry affirms: array items, true flags, word values, nested objects', () => {
    expect(
      capabilityWords(
        {
          id: 'm-1',
          capabilities: ['chat', 'responses'],
          supports_stream: true,
          native_embeddings: false,
          limits: { context: 8192, vision: 0 },
          type: 'text',
          modes: 'chat, tools',
          description: 'A chat model without responses support.',
          endpoints: { responses: 'unsupported', chat: 'native' },
        },
        'id',
      ),
    ).toEqual([
      'chat',
      'responses',
      'supports_stream',
      'context',
      'text',
      'type',
      'chat',
      'tools',
      'modes',
      'native',
      'chat',
    ]);
  });

  it('a model whose entry denies a capability is not taken for it (native_responses: false)', () => {
    const hints = catalogHints([
      { id: 'tx-chat-1', capabilities: ['chat'], native_responses: false },
      { id: 'tx-chat-2', capabilities: ['chat'], native_responses: true },
      { id: 'tx-emb-1', capabilities: ['embedding'], supports_chat: false },
    ]);
    expect(hints).toEqual({
      chat: 'tx-chat-1',
      no_responses: 'tx-chat-1',
      responses: 'tx-chat-2',
      embedding: 'tx-emb-1',
    });
  });

  it('free text names nothing; the id is not read as a capability', () => {
    expect(
      catalogHints([
        { id: 'wc-embed-chat', description: 'Embeddings for chat and responses retrieval' },
        { id: 'x', capabilities: 'embeddings' },
      ]),
    ).toEqual({ embedding: 'x' });
  });
});

import { expect } from 'chai';
import { DOCUMENTS, loadBundledDocument } from '../../../src/http/apiBuild.js';
import { PERMISSION_MARKERS, PERMISSIONS, ROLES } from '../../../src/kernel/permissions.js';

type Operation = { operationId: string; security?: unknown[]; responses: Record<string, unknown>; 'x-permission'?: string };

/** Every documented operation of both documents, with its document's security when it names none. */
function documentedOperations(): { document: string; method: string; path: string; op: Operation; security: unknown[] }[] {
  return DOCUMENTS.flatMap((document) => {
    const doc = loadBundledDocument(document) as unknown as { paths: Record<string, Record<string, Operation>>; security?: unknown[] };
    return Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => typeof op === 'object' && op !== null && 'operationId' in op)
        .map(([method, op]) => ({ document, method, path, op, security: op.security ?? doc.security ?? [] })),
    );
  });
}

describe('permissions: every documented operation names the one it needs', () => {
  const operations = documentedOperations();

  it('finds the operations of both documents', () => {
    expect(new Set(operations.map((o) => o.document))).to.have.keys('closed-loop', 'core');
    expect(operations.length).to.be.greaterThan(100);
  });

  it('gives each operation an x-permission that is a permission or a marker', () => {
    const known: string[] = [...PERMISSIONS, ...PERMISSION_MARKERS];
    const wrong = operations.filter(({ op }) => !known.includes(op['x-permission'] ?? '')).map(({ op }) => `${op.operationId}: ${op['x-permission']}`);
    expect(wrong).to.deep.equal([]);
  });

  it('marks exactly the public operations none, and each operation behind the token documents 403', () => {
    for (const { op, security } of operations) {
      const permission = op['x-permission'];
      expect(permission === 'none', op.operationId).to.equal(security.length === 0);
      if (permission !== 'none' && permission !== 'signature') expect(op.responses, op.operationId).to.have.property('403');
    }
  });

  it('has roles made of known permissions, owner holding every one and viewer only reads', () => {
    for (const granted of Object.values(ROLES)) for (const p of granted) expect(PERMISSIONS).to.include(p);
    expect([...ROLES.owner]).to.deep.equal([...PERMISSIONS]);
    expect(ROLES.viewer.every((p) => p.endsWith(':read'))).to.equal(true);
  });
});

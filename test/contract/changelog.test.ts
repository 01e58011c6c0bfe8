/**
 * The API changelog cannot drift: its "Unreleased" section is what the diff of the
 * current documents against the released ones says (`npm run api:changelog` writes it),
 * and it is served beside the documents.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CHANGELOG, diffAll, readUnreleased, unreleasedSection } from '../../scripts/apiContract.js';
import { get } from '../support/client.js';

describe('API changelog', function () {
  this.timeout(180_000);

  it('has the Unreleased section the diff gives (run `npm run api:changelog` after changing the documents)', async () => {
    const expected = unreleasedSection(await diffAll());
    expect(readUnreleased(readFileSync(CHANGELOG, 'utf8'))).to.equal(expected);
  });

  it('is served as GET /openapi/CHANGELOG.md, as committed', async () => {
    const res = await get('/openapi/CHANGELOG.md');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/markdown/);
    expect(res.body).to.equal(readFileSync(CHANGELOG, 'utf8'));
  });
});

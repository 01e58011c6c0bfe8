/**
 * The portal's bulk payout preview (src/portal/assets/pages/payouts/csv.js, run here as the
 * browser runs it) against the service itself: every row the preview marks rejected is
 * REJECTED `VALIDATION_ERROR` in the batch report with the same words, every row it leaves
 * to the service is not rejected for its values, and a file it refuses as a whole is 400
 * `VALIDATION_ERROR` for the whole request. So the preview states the service's rules, not
 * rules of its own.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { get } from '../support/client.js';
import { payoutBusinessHooks, sendBulkPayout, type PayoutBusiness } from '../support/payouts.js';

const MODULE = pathToFileURL(path.resolve('src/portal/assets/pages/payouts/csv.js')).href;

/** The browser module (plain JavaScript, loaded by URL so the type checker leaves it alone). */
async function previewModule(): Promise<{ bulkPreview: (text: string) => any; parseCsv: (text: string) => any[] }> {
  return import(MODULE);
}

describe('Portal bulk payout preview against the service', () => {
  let pb: PayoutBusiness;
  payoutBusinessHooks((made) => (pb = made), '1000.00');

  it('parses RFC 4180 quoting, CRLF records and a byte order mark', async () => {
    const { parseCsv } = await previewModule();
    const records = parseCsv('\uFEFFa,b\r\n"x, ""y""","line\nbreak"\r\n\r\n3,\n');
    expect(records.map((r: any) => r.cells)).to.deep.equal([['a', 'b'], ['x, "y"', 'line\nbreak'], ['3', '']]);
    expect(records.map((r: any) => r.line)).to.deep.equal([1, 2, 5]);
  });

  it('marks exactly the rows the service rejects for their values, in its words', async () => {
    const { bulkPreview } = await previewModule();
    const mobile = pb.customer.mobile_number;
    const csv = [
      'payout_amount,payout_purpose,external_reference,customer_id,walletAccountNumber,mobileNumber',
      `10.00,Bonus,row-0,,,${mobile}`,
      `1.005,,row-1,,,${mobile}`,
      `0.00,,row-2,,,${mobile}`,
      `-5,,row-3,,,${mobile}`,
      `,,row-4,,,${mobile}`,
      '5.00,,row-5,,,+966500000000',
      '5.00,,row-6,not-a-uuid,,',
      '5.00,,row-7,,12345,',
      `5.00,,row-8,${pb.customer.id},,${mobile}`,
      '5.00,,row-9,,,',
      '5.00,,row-10,,,966500000001',
      ' 5.00,,row-11,,,966500000001',
      '"7",,"row-12",,,' + mobile,
    ].join('\r\n');
    const preview = bulkPreview(csv);
    expect(preview.fileProblems).to.deep.equal([]);
    expect(preview.rows.filter((r: any) => r.rejection).map((r: any) => r.index)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 11]);

    const sent = await sendBulkPayout(pb.b, preview.items);
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    const report = await get(`/bulk-payouts/${sent.body.bulk_payout_id}/report`, { token: pb.b.token });
    expect(report.status).to.equal(200);
    for (const row of preview.rows) {
      const served = report.body.data[row.index];
      if (row.rejection) {
        expect([served.status, served.failure_code, served.failure_detail], `row ${row.index}`).to.deep.equal(['REJECTED', 'VALIDATION_ERROR', row.rejection.detail]);
      } else {
        expect(served.failure_code, `row ${row.index}: ${JSON.stringify(served)}`).to.not.equal('VALIDATION_ERROR');
      }
    }
    expect(report.body.data[10].failure_code, 'a well-formed unknown number is for the service to decide').to.equal('CUSTOMER_NOT_FOUND');
  });

  it('refuses as a whole the files the service refuses as a whole', async () => {
    const { bulkPreview } = await previewModule();
    const files = [
      'payout_amount,mobileNumber,note\n5.00,966500000001,x',
      `payout_amount,mobileNumber\n${'1'.repeat(65)},966500000001`,
      `payout_amount,payout_purpose,mobileNumber\n5.00,${'p'.repeat(141)},966500000001`,
      'payout_amount,payout_purpose,mobileNumber\n5.00,"two\nlines",966500000001',
    ];
    for (const csv of files) {
      const preview = bulkPreview(csv);
      expect(preview.fileProblems, csv).to.have.length.greaterThan(0);
      const items = preview.rows.map((r: any) => r.item);
      // The preview drops an unknown column; the service is asked with it to show it refuses the field.
      const asSent = csv.includes(',note') ? items.map((item: any) => ({ ...item, note: 'x' })) : items;
      const res = await sendBulkPayout(pb.b, asSent);
      expect(res.status, `${csv}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.code).to.equal('VALIDATION_ERROR');
    }
    expect(bulkPreview('payout_amount,mobileNumber\n').fileProblems).to.have.length(1);
    expect(bulkPreview('payout_amount,mobileNumber\n5.00,966500000001\n').fileProblems).to.deep.equal([]);
  });
});

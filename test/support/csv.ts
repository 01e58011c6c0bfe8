/** Reading the CSV documents the service answers (RFC 4180), as a spreadsheet would. */

/** The records of an RFC 4180 document (quoted fields, doubled quotes, CRLF or LF line ends). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') record.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      (record = []), (field = '');
    } else field += c;
  }
  if (field || record.length) records.push([...record, field]);
  return records;
}

/** The records of a CSV document after its header line, as objects keyed by the header's names. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...records] = parseCsv(text);
  return records.map((r) => Object.fromEntries(header.map((name, i) => [name, r[i]])));
}

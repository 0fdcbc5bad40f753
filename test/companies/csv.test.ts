// The CSV parser of the company import, on its own: RFC 4180 quoting, both line endings, the
// byte-order mark, blank lines, and the malformed files it must refuse with the line.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors';
import { parseCsv } from '../../src/resources/companies/import-csv';

const fields = (text: string) => parseCsv(text).map((record) => record.fields);

function refusal(text: string): string {
  try {
    parseCsv(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).errors[0]!.detail;
  }
  throw new Error('expected a refusal');
}

describe('parseCsv', () => {
  it('splits fields and records with LF, CRLF and a last line without a break', () => {
    expect(fields('name,email\nAcme,a@acme.com\r\nGlobex,g@globex.com')).toEqual([
      ['name', 'email'],
      ['Acme', 'a@acme.com'],
      ['Globex', 'g@globex.com'],
    ]);
    expect(fields('name\r\nAcme\r\n')).toEqual([['name'], ['Acme']]);
  });

  it('keeps commas, line breaks and doubled quotes inside quoted fields', () => {
    expect(fields('name,details\n"Acme, Inc.","line one\r\nline ""two"""\n')).toEqual([
      ['name', 'details'],
      ['Acme, Inc.', 'line one\r\nline "two"'],
    ]);
  });

  it('drops a byte-order mark and keeps empty fields', () => {
    expect(fields('\uFEFFname,email,website\nAcme,,\n')).toEqual([
      ['name', 'email', 'website'],
      ['Acme', '', ''],
    ]);
    expect(fields('name,email\n"",""\n')).toEqual([
      ['name', 'email'],
      ['', ''],
    ]);
  });

  it('numbers each record by the line it starts on, skipping blank lines', () => {
    const records = parseCsv('name,details\n\nAcme,"two\nlines"\r\n\r\nGlobex,x\n');
    expect(records.map((record) => record.line)).toEqual([1, 3, 6]);
  });

  it('reads an empty file as no records', () => {
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv('\uFEFF\r\n\n')).toEqual([]);
  });

  it('refuses a quote never closed, text after a closing quote, and a stray quote, naming the line', () => {
    expect(refusal('name\nAcme\n"Globex\n')).toMatch(/^line 3: a quoted field is never closed/);
    expect(refusal('name,x\n"Acme"x,1\n')).toMatch(/^line 2: text after the closing quote/);
    expect(refusal('name\nAc"me\n')).toMatch(/^line 2: a quote inside an unquoted field/);
  });
});

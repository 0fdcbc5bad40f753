import { ApiError } from '../../http/errors';

/** One record of a CSV file and the line of the file it starts on (the header is line 1). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * Parses CSV as RFC 4180 writes it: fields separated by commas, records by CRLF or LF, a field in
 * double quotes may hold commas, line breaks and doubled quotes (`""`). A leading byte-order mark
 * is dropped. Blank lines are skipped. A quote that is never closed, or text after a closing
 * quote, is a 400 naming the line, because guessing would import the wrong values.
 */
export function parseCsv(text: string): CsvRecord[] {
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let i = 0;
  let quotedFieldEnded = false;

  const endField = () => {
    fields.push(field);
    field = '';
    quotedFieldEnded = false;
  };
  const endRecord = () => {
    endField();
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: recordLine, fields });
    fields = [];
  };

  while (i < input.length) {
    const char = input[i]!;
    if (char === '"' && field === '' && !quotedFieldEnded) {
      const startLine = line;
      i++;
      for (;;) {
        if (i >= input.length) throw ApiError.invalid('body', `line ${startLine}: a quoted field is never closed`);
        const inner = input[i]!;
        if (inner === '"') {
          if (input[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (inner === '\n') line++;
        field += inner;
        i++;
      }
      quotedFieldEnded = true;
      continue;
    }
    if (char === ',') {
      endField();
      i++;
      continue;
    }
    if (char === '\r' || char === '\n') {
      endRecord();
      i += char === '\r' && input[i + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    if (quotedFieldEnded) throw ApiError.invalid('body', `line ${line}: text after the closing quote of a field`);
    if (char === '"')
      throw ApiError.invalid(
        'body',
        `line ${line}: a quote inside an unquoted field (quote the whole field and double the quote)`,
      );
    field += char;
    i++;
  }
  if (field !== '' || fields.length > 0 || quotedFieldEnded) endRecord();
  return records;
}

/**
 * What a reader sends to try an operation, written with the operation's declaration: its path
 * parameters, query and JSON body. The document shows it as the operation's examples, and
 * test/openapi/walk.test.ts sends every operation's, in order, to a fresh installation, each id it
 * names taken as a record of that type in that installation (test/openapi/walk-records.ts): an
 * example that stops working fails the suite. A required parameter it leaves out is sent as its
 * own example says; an optional one is not sent.
 */
export interface RequestExample {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  body?: unknown;
}

/** What the operation answered to its example in the walk that recorded it (`npm run examples`), and the path it was sent to. */
export interface RecordedAnswer {
  status: number;
  body: unknown;
  /** the path parameters as sent: the records of that walk */
  params?: Record<string, string | number>;
}

const requestExamples = new Map<string, RequestExample>();

/** Notes an operation's example, for the document (`mountRoute` calls it for every declared one). */
export function registerExample(operationId: string, example: RequestExample): void {
  requestExamples.set(operationId, example);
}

interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { example?: unknown }> }>;
}
type Paths = Record<string, Record<string, Operation>>;

/**
 * The document with every operation's request example and, where one was recorded, the answer it
 * got. The recorded answers (some 200 KB) are loaded here, on the document's first request, not
 * when an isolate starts.
 */
export async function withExamples<D extends { paths?: object }>(document: D): Promise<D> {
  const answers = (await import('./example-answers.json')).default as Record<string, RecordedAnswer>;
  const paths = Object.fromEntries(
    Object.entries((document.paths ?? {}) as Paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [method, withOperationExamples(operation, answers)]),
      ),
    ]),
  );
  return { ...document, paths };
}

function withOperationExamples(operation: Operation, answers: Record<string, RecordedAnswer>): Operation {
  const id = operation.operationId;
  const example = id === undefined ? undefined : requestExamples.get(id);
  const answer = id === undefined ? undefined : answers[id];
  if (!example && !answer) return operation;
  const given = { ...example?.params, ...example?.query } as Record<string, unknown>;
  const parameters = operation.parameters?.map((parameter) => {
    if ((parameter.in === 'path' || parameter.in === 'query') && parameter.name in given)
      return { ...parameter, example: given[parameter.name] };
    // a path parameter the declaration leaves to the reader shows the record the recorded answer is of
    const sent = parameter.in === 'path' ? answer?.params?.[parameter.name] : undefined;
    return sent === undefined
      ? parameter
      : { ...parameter, examples: { recorded: { summary: 'the record of the answer shown', value: sent } } };
  });
  // the body's example goes with its JSON form, or with the first form an operation of text takes (a CSV import)
  const content = operation.requestBody?.content ?? {};
  const form = 'application/json' in content ? 'application/json' : Object.keys(content)[0];
  const requestBody =
    form && example?.body !== undefined
      ? { ...operation.requestBody, content: { ...content, [form]: { ...content[form], example: example.body } } }
      : operation.requestBody;
  const response = answer && operation.responses?.[answer.status];
  const answered = response?.content?.['application/json'];
  const responses =
    response && answered
      ? {
          ...operation.responses,
          [answer.status]: {
            ...response,
            content: { ...response.content, 'application/json': { ...answered, example: answer.body } },
          },
        }
      : operation.responses;
  return {
    ...operation,
    ...(parameters ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    ...(responses ? { responses } : {}),
  };
}

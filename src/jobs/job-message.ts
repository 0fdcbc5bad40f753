/** A message on the jobs queue: `kind` picks the consumer (a module's `consumers`). */
export interface JobMessage {
  kind: string;
  [key: string]: unknown;
}

import { files } from '../../db/schema';
import type { RecordShape } from '../../engine';

/** Files as other resources include them. Uploads arrive with the ticket work. */
export const fileShape: RecordShape = {
  type: 'files',
  component: 'File',
  table: files,
  properties: { name: files.name, contentType: files.contentType, size: files.size, url: files.url },
};

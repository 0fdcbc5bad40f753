import { files } from '../../db/schema';
import type { RecordShape } from '../../engine';
import { attachableFiles, notAttachable } from './attach';

/**
 * Files as other resources include them: the platform's names (`filename`, `mimeType`,
 * `disposition`) beside the older ones. Linked only under the attach rule (`attach.ts`).
 */
export const fileShape: RecordShape = {
  type: 'files',
  component: 'File',
  table: files,
  properties: {
    name: files.name,
    filename: files.name,
    contentType: files.contentType,
    mimeType: files.contentType,
    disposition: files.disposition,
    size: files.size,
    url: files.url,
  },
  linkable: { where: attachableFiles, refusal: notAttachable },
};

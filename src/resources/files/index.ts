import { defineModule } from '../../modules/module';
import { confirmFileRoute } from './confirm';
import { downloadTicketFileRoute } from './download';
import { filesResource } from './files.resource';
import { createFileRefRoute } from './ref';
import { sweepUnconfirmedFiles } from './sweep';
import { uploadFileRoute } from './upload';

/**
 * `/v2/files...` and `/v2/tickets/{id}/files/{fileId}/download`: the platform's three-step upload
 * (`ref.ts` the form, `upload.ts` the bytes into R2, `confirm.ts`), files listed and read, downloads
 * of a ticket's attachments, and the cron's sweep of uploads never confirmed. Files are attached
 * to thread entries by `attach.ts`.
 */
export const filesModule = defineModule({
  name: 'files',
  resources: [filesResource],
  routes: [createFileRefRoute, uploadFileRoute, confirmFileRoute, downloadTicketFileRoute],
  cron: { sweepUnconfirmed: sweepUnconfirmedFiles },
});

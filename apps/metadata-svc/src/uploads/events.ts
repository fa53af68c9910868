import type { NetworkName } from '@nrp/chain';
import { parentOf } from '@nrp/ens';
import { newEvent, type EventOutbox } from '@nrp/outbox';
import type { ImageEvents } from '../data/images';
import { stableImageUrl } from './stable-url';

/**
 * `image.*` events into `outbox`, for the webhooks of the name's parent: data is the image as the API shows it
 * (network, name, kind, stable URL, uploader, content type, size, upload time) and its status after the change.
 */
export function imageEventsTo(outbox: EventOutbox, baseUrl: string): ImageEvents {
  return (trx, type, rows) =>
    outbox.append(
      trx,
      rows.map((row) =>
        newEvent(type, parentOf(row.name) ?? row.name, {
          network: row.network,
          name: row.name,
          kind: row.kind,
          status: row.status,
          url: stableImageUrl(baseUrl, row.network as NetworkName, row.name, row.kind),
          uploader: row.uploader,
          contentType: row.content_type,
          size: row.size,
          uploadedAt: row.uploaded_at.toISOString(),
        }),
      ),
    );
}

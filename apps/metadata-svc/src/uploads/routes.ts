import {
  avatarUploadBodySchema,
  avatarUploadResultSchema,
  confirmResultSchema,
  headerUploadBodySchema,
  deleteResultSchema,
  headerUploadResultSchema,
  profileImageParamsSchema,
  type ImageKind,
  signedRequestSchema,
} from '@nrp/api';
import { authProblems, SIGN_IN_BINDING_RULE } from '@nrp/auth';
import { namehash } from '@nrp/ens';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MetadataContext } from '../context';
import { IMAGE_CSP } from '../images/http';
import { validateImage } from '../images/validation';
import { problems } from '../problems';
import { signIn } from '../sign-in/sign-in';
import { checkDeclaredUpload, multipartUpload } from './multipart';
import { uploadGate } from './upload-gate';
import { confirmUpload, deleteImage, servedImage, uploadImage } from './uploads';
const signInProblems = Object.values(authProblems);
const BINDING_TEXT =
  'Recommended: bind the message to this request (the client helper `imageSignInMessage` does): its URI and only ' +
  'resource are the stable URL `{PUBLIC_BASE_URL}/profile/{network}/{name}/{avatar|header}` and its statement names ' +
  'the operation (`upload` or `delete`), so the signature cannot be used for another name, kind or operation. ' +
  SIGN_IN_BINDING_RULE;

/** The bytes `multipartUpload` left on the request (it answers MISSING_FILE/EMPTY_FILE itself, before this). */
function uploadedBytes(file: { buffer: Buffer } | undefined): Buffer {
  if (!file) throw new Error('multipartUpload must run before the upload handler');
  return file.buffer;
}

function routesFor(
  ctx: MetadataContext,
  kind: ImageKind,
  gate: ReturnType<typeof uploadGate>,
): RouteDefinition[] {
  const path = `/profile/:network/:subname/${kind}`;
  const Kind = kind === 'avatar' ? 'Avatar' : 'Header';
  const maxBytes = kind === 'avatar' ? ctx.config.AVATAR_MAX_BYTES : ctx.config.HEADER_MAX_BYTES;
  const minutes = ctx.config.PENDING_WINDOW_MS / 60_000;
  return [
    defineRoute({
      method: 'post',
      path,
      operationId: `upload${Kind}`,
      budget: {
        bodyBytes: maxBytes + 64 * 1024,
        answerBytes: 8 * 1024,
        timeMs: 60_000,
        concurrency: { name: 'image-upload', limit: 4 },
      },
      security: 'signIn',
      summary: `Upload the ${kind} of a name`,
      description:
        `Multipart form: \`${kind}\` (the file, at most ${maxBytes} bytes), \`siweMessage\`, \`siweSignature\`, ` +
        '`address`. The type comes from the bytes (jpeg, png, gif, webp, svg); rasters are decoded under a pixel ' +
        'limit (all frames together) and re-encoded in their format, so no metadata of the file is published (EXIF ' +
        'such as GPS position, XMP, IPTC, ICC profile — pixels converted to sRGB —, comments, PNG text chunks; a ' +
        "JPEG's EXIF orientation is applied to the pixels; animated GIF and WebP keep their frames); what is kept is " +
        `served whole, so it is at most ${MAX_ANSWER_BYTES} bytes (4 MiB, the answer budget of every route): the ` +
        'body may reach the upload limit (a 5 MB header), but an image still over 4 MiB once re-encoded is 413 ' +
        '`IMAGE_TOO_LARGE` at upload, never stored. SVG is sanitised ' +
        '(no scripts, event handlers, `foreignObject`, `<style>`, `<metadata>`, or references outside the ' +
        'document). The file is validated BEFORE the signature is checked, so a rejected file does not use up the ' +
        `nonce. When the name's \`${kind}\` text record (resolved through ENS, wildcard and CCIP-Read included) ` +
        'already is the stable URL, the signer must own the name and the image is visible at once; otherwise the ' +
        `upload is pending for ${minutes} minutes and becomes visible when the record is set and the uploader owns ` +
        'the name (the worker checks every PENDING_CHECK_INTERVAL_MS; `POST …/confirm` checks at once). The owner: ' +
        'the NameWrapper or registry owner on this network, else the offchain owner, else (an L2 subname, uploaded ' +
        'under the L1 its L2 settles on) the holder of its live token on the served L2 registry of its parent. ' +
        '`isUpdate` is true when a visible image (or, for a pending upload, an earlier pending upload of ' +
        'the same signer) is replaced. The decode takes a slot of the image work pool shared with avatars ' +
        '(IMAGE_WORK_CONCURRENCY, IMAGE_WORK_QUEUE_MAX waiting; beyond: 503 `SERVICE_UNAVAILABLE` with ' +
        '`Retry-After: 1`, nothing stored, the nonce unused). Pending uploads are bounded: an address may have ' +
        `${ctx.config.PENDING_UPLOADS_PER_UPLOADER} (PENDING_UPLOADS_PER_UPLOADER, all names; beyond: 429 ` +
        `\`PENDING_UPLOAD_LIMIT\`), and one name and kind ${ctx.config.PENDING_UPLOADS_PER_NAME} from addresses ` +
        'other than its owner (PENDING_UPLOADS_PER_NAME; beyond: 409 `NAME_PENDING_LIMIT`; the owner is never ' +
        'refused so); replacing your own pending upload of the name does not count; both answers carry ' +
        '`Retry-After` (when the oldest counted upload expires) and store nothing. ' +
        BINDING_TEXT,
      tags: ['images'],
      params: profileImageParamsSchema,
      body: kind === 'avatar' ? avatarUploadBodySchema : headerUploadBodySchema,
      bodyContentType: 'multipart/form-data',
      responses: {
        200: {
          description: 'Stored (confirmed, or pending with `pending: true` and a `message`)',
          schema: kind === 'avatar' ? avatarUploadResultSchema : headerUploadResultSchema,
        },
      },
      problems: [
        commonProblems.INVALID_INPUT,
        commonProblems.INVALID_NAME,
        problems.MISSING_FILE,
        problems.EMPTY_FILE,
        problems.INVALID_IMAGE,
        problems.INVALID_MULTIPART,
        ...signInProblems,
        problems.NOT_SUBNAME_OWNER,
        problems.FILE_TOO_LARGE,
        problems.IMAGE_TOO_LARGE,
        problems.INVALID_FILE_FORMAT,
        problems.NAME_PENDING_LIMIT,
        problems.PENDING_UPLOAD_LIMIT,
        commonProblems.RATE_LIMITED,
        commonProblems.UPSTREAM_ERROR,
        commonProblems.SERVICE_UNAVAILABLE,
      ],
      rateLimit: { name: `upload-${kind}`, windowMs: 60_000, limit: ctx.config.UPLOAD_RATE_LIMIT_PER_MINUTE },
      before: [checkDeclaredUpload(kind, maxBytes), gate, multipartUpload(kind, maxBytes)],
      handler: async ({ params, body }, req) => {
        // Decoding is image work like an avatar's: the same slots, so uploads cannot starve or flood them.
        const image = await ctx.imageWork.run(() => validateImage(ctx, uploadedBytes(req.file)));
        const target = { network: params.network, name: params.subname, kind };
        const session = await signIn(ctx, target, 'upload', body);
        const { url, ...result } = await uploadImage(ctx, {
          network: params.network,
          name: params.subname,
          kind,
          signer: session.address,
          image,
        });
        return kind === 'avatar' ? { ...result, avatarUrl: url } : { ...result, headerUrl: url };
      },
    }),
    defineRoute({
      method: 'delete',
      path,
      operationId: `delete${Kind}`,
      budget: { bodyBytes: 16 * 1024, answerBytes: 8 * 1024, timeMs: 30_000 },
      security: 'signIn',
      summary: `Delete the ${kind} of a name`,
      description:
        'JSON body: `siweMessage`, `siweSignature`, `address`. The signer must own the name (403 ' +
        "`NOT_SUBNAME_OWNER`); the visible image and the signer's pending upload are removed (404 " +
        '`IMAGE_NOT_FOUND` when there is neither). ' +
        BINDING_TEXT,
      tags: ['images'],
      params: profileImageParamsSchema,
      body: signedRequestSchema,
      responses: { 200: { description: 'Deleted', schema: deleteResultSchema } },
      problems: [
        commonProblems.INVALID_INPUT,
        commonProblems.INVALID_NAME,
        ...signInProblems,
        problems.NOT_SUBNAME_OWNER,
        problems.IMAGE_NOT_FOUND,
        commonProblems.RATE_LIMITED,
        commonProblems.UPSTREAM_ERROR,
      ],
      rateLimit: { name: `delete-${kind}`, windowMs: 60_000, limit: ctx.config.DELETE_RATE_LIMIT_PER_MINUTE },
      handler: async ({ params, body }) => {
        const target = { network: params.network, name: params.subname, kind };
        const session = await signIn(ctx, target, 'delete', body);
        return deleteImage(ctx, {
          network: params.network,
          name: params.subname,
          kind,
          signer: session.address,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: `${path}/confirm`,
      operationId: `confirm${Kind}`,
      budget: { bodyBytes: 0, answerBytes: 8 * 1024, timeMs: 30_000 },
      summary: `Confirm a pending ${kind} upload now`,
      description:
        `For a client that has just set the \`${kind}\` text record to the stable URL and wants its pending upload ` +
        'served at once, instead of within PENDING_CHECK_INTERVAL_MS when the worker checks it. No body and no ' +
        'sign-in: it does what the worker does, for this name and kind only — the record is read (through ENS, ' +
        "wildcard and CCIP-Read included) and, when it is the stable URL, the pending upload of the name's owner " +
        'becomes the visible image (its `image.confirmed` event is written). 404 `PENDING_UPLOAD_NOT_FOUND` when ' +
        'nothing is pending (already confirmed, or discarded after the window), 409 `RECORD_NOT_SET` when the ' +
        'record is not the stable URL yet (retry once the transaction is mined), 403 `NOT_SUBNAME_OWNER` when no ' +
        "pending upload is by the name's owner.",
      tags: ['images'],
      params: profileImageParamsSchema,
      responses: { 200: { description: 'Confirmed: the stable URL serves it', schema: confirmResultSchema } },
      problems: [
        commonProblems.INVALID_INPUT,
        commonProblems.INVALID_NAME,
        problems.PENDING_UPLOAD_NOT_FOUND,
        problems.RECORD_NOT_SET,
        problems.NOT_SUBNAME_OWNER,
        commonProblems.RATE_LIMITED,
        commonProblems.UPSTREAM_ERROR,
      ],
      rateLimit: {
        name: `confirm-${kind}`,
        windowMs: 60_000,
        limit: ctx.config.CONFIRM_RATE_LIMIT_PER_MINUTE,
      },
      handler: ({ params }) => confirmUpload(ctx, { network: params.network, name: params.subname, kind }),
    }),
    defineRoute({
      method: 'get',
      path,
      operationId: `get${Kind}`,
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 30_000 },
      summary: `The ${kind} image of a name`,
      description:
        `The stable URL to put in the \`${kind}\` text record: the confirmed upload (a pending one is served once ` +
        'the worker or `POST …/confirm` has confirmed it; reading never changes anything). ' +
        'Served with its own content type, `ETag` (content hash; `If-None-Match` answers 304), ' +
        '`Cache-Control: public, max-age=60`, `X-Content-Type-Options: nosniff` and a sandboxing ' +
        '`Content-Security-Policy`.',
      tags: ['images'],
      params: profileImageParamsSchema,
      responses: {
        200: { description: 'The image bytes', contentType: 'image/*' },
        304: { description: 'Not modified' },
      },
      problems: [commonProblems.INVALID_NAME, problems.IMAGE_NOT_FOUND],
      handler: async ({ params }, req, res) => {
        const { image, bytes } = await servedImage(ctx, {
          network: params.network,
          name: params.subname,
          node: namehash(params.subname),
          kind,
        });
        res.setHeader('Content-Type', image.content_type);
        res.setHeader('ETag', image.etag);
        res.setHeader('Cache-Control', 'public, max-age=60');
        res.setHeader('Content-Security-Policy', IMAGE_CSP);
        res.setHeader('Last-Modified', image.uploaded_at.toUTCString());
        if (req.fresh) {
          res.status(304).end();
          return;
        }
        res.status(200).send(bytes);
      },
    }),
  ];
}

export function uploadRoutes(ctx: MetadataContext): RouteDefinition[] {
  // One gate for both kinds: the memory bound is per process.
  const gate = uploadGate(ctx.config.UPLOAD_CONCURRENCY, ctx.config.UPLOAD_QUEUE_MAX);
  return [...routesFor(ctx, 'avatar', gate), ...routesFor(ctx, 'header', gate)];
}

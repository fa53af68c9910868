/** Typed client of the image and metadata service, and the helpers of its sign-in-and-upload flow. */
import { problemOf, requestJson, ServiceError, serviceUrl, type ClientOptions } from './http';
import { boundSignInMessage, NETWORK_CHAIN_IDS } from './sign-in-message';
import type {
  AvatarUploadResult,
  ConfirmResult,
  DeleteResult,
  HeaderUploadResult,
  ImageKind,
  MetadataNetwork,
  NonceRequest,
  NonceResponse,
  TokenMetadata,
  TokenNetwork,
} from '@nrp/api/metadata';
import type { SignedRequest } from '@nrp/api/signed-request';

export type {
  AvatarUploadResult,
  ConfirmResult,
  DeleteResult,
  HeaderUploadResult,
  ImageKind,
  MetadataNetwork,
  NonceRequest,
  NonceResponse,
  TokenMetadata,
  TokenNetwork,
} from '@nrp/api/metadata';
export type { SignedRequest } from '@nrp/api/signed-request';
export * from './http';
export * from './sign-in-message';

/** Chain ids of the networks the service serves: the `Chain ID` of a sign-in message for that network. */
export const METADATA_CHAIN_IDS: Readonly<Record<MetadataNetwork, number>> = NETWORK_CHAIN_IDS;

export interface ImageTarget {
  network: MetadataNetwork;
  /** The full name, e.g. `alice.offchain.eth`. */
  subname: string;
}

export interface UploadInput extends SignedRequest, ImageTarget {
  file: Blob;
  fileName?: string;
}

export interface ImageSignInInput extends ImageTarget {
  /** The metadata service's public base URL (its `PUBLIC_BASE_URL`): the message names the image under it. */
  serviceUrl: string;
  /** The domain the wallet signs for: one of the service's `SIWE_DOMAINS`, usually the page's `location.host`. */
  domain: string;
  address: string;
  nonce: string;
  kind: ImageKind;
  operation: 'upload' | 'delete';
  issuedAt?: Date;
  /** Default: ten minutes after `issuedAt`. */
  expirationTime?: Date;
}

export interface StoredImage {
  bytes: Uint8Array;
  contentType: string;
  etag: string | null;
}

export interface WaitForImageOptions {
  /** The upload's `uploadedAt`: an older visible image (the one being replaced) does not count. */
  uploadedAt?: string;
  signal?: AbortSignal;
  /** First pause between two checks; doubled after each until `maxDelayMs`. Defaults 1000 and 15000. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/** The stable URL of a name's image: what its `avatar`/`header` text record must hold. */
export function imageUrl(baseUrl: string, target: ImageTarget, kind: ImageKind): string {
  return `${baseUrl.replace(/\/+$/, '')}/profile/${target.network}/${encodeURIComponent(target.subname)}/${kind}`;
}

/**
 * The EIP-4361 message for one upload or delete, bound to it: its URI and its only resource are the image's
 * stable URL, and the statement names the operation. The caller's wallet signs it.
 */
export function imageSignInMessage(input: ImageSignInInput): string {
  const verb = input.operation === 'upload' ? 'Upload' : 'Delete';
  return boundSignInMessage({
    ...input,
    url: imageUrl(input.serviceUrl, input, input.kind),
    statement: `${verb} the ${input.kind} of ${input.subname} on ${input.network}.`,
    chainId: METADATA_CHAIN_IDS[input.network],
  });
}

function uploadForm(kind: ImageKind, input: UploadInput): FormData {
  const form = new FormData();
  form.set('siweMessage', input.siweMessage);
  form.set('siweSignature', input.siweSignature);
  form.set('address', input.address);
  form.set(kind, input.file, input.fileName ?? kind);
  return form;
}

function imagePath(target: ImageTarget, kind: ImageKind): string {
  return `/profile/${target.network}/${encodeURIComponent(target.subname)}/${kind}`;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface MetadataClient {
  /** `POST /auth/nonce` */
  getNonce(body: NonceRequest): Promise<NonceResponse>;
  /** `POST /profile/{network}/{subname}/avatar` */
  uploadAvatar(input: UploadInput): Promise<AvatarUploadResult>;
  /** `POST /profile/{network}/{subname}/header` */
  uploadHeader(input: UploadInput): Promise<HeaderUploadResult>;
  /** `DELETE /profile/{network}/{subname}/{kind}` */
  deleteImage(kind: ImageKind, input: SignedRequest & ImageTarget): Promise<DeleteResult>;
  /**
   * `POST /profile/{network}/{subname}/{kind}/confirm`: confirms a pending upload now that the name's text record is
   * its stable URL (the service's worker does the same within seconds). 409 `RECORD_NOT_SET` while it is not, 404
   * `PENDING_UPLOAD_NOT_FOUND` when nothing is pending.
   */
  confirmImage(kind: ImageKind, target: ImageTarget): Promise<ConfirmResult>;
  /** `GET /metadata/network/{chainId}/token/{tokenId}` */
  getTokenMetadata(chainId: number, tokenId: bigint | string): Promise<TokenMetadata>;
  /** `GET /{network}/{contractAddress}/{tokenId}`: an L1 NameWrapper token or an L2 registry token (base, base-sepolia). */
  getContractTokenMetadata(
    network: TokenNetwork,
    contractAddress: string,
    tokenId: bigint | string,
  ): Promise<TokenMetadata>;
  /** The bytes and type of a visible image (`GET /profile/{network}/{subname}/{kind}`). */
  getImage(target: ImageTarget, kind: ImageKind): Promise<StoredImage>;
  /**
   * Waits until a pending upload is confirmed (the name's text record was set to `imageUrl(...)`): with a backoff,
   * asks the service to confirm it (`confirmImage`) and, when nothing is pending any more (the worker confirmed it),
   * checks that the image is visible; resolves with its stable URL. Rejects with the signal's reason when aborted, and
   * with any answer but those of a confirmation still to come (`RECORD_NOT_SET`, `PENDING_UPLOAD_NOT_FOUND`,
   * `IMAGE_NOT_FOUND`).
   */
  waitForImage(target: ImageTarget, kind: ImageKind, options?: WaitForImageOptions): Promise<string>;
}

export function createMetadataClient(options: ClientOptions): MetadataClient {
  /** Whether the visible image is the one uploaded at `uploadedAt` (or any image, without it). */
  const isVisible = async (target: ImageTarget, kind: ImageKind, wait: WaitForImageOptions) => {
    const response = await (options.fetch ?? fetch)(serviceUrl(options, imagePath(target, kind)), {
      headers: options.headers,
      cache: 'no-store',
      signal: wait.signal,
    });
    if (!response.ok) {
      const problem = await problemOf(response);
      if (problem.code === 'IMAGE_NOT_FOUND') return false;
      throw problem;
    }
    await response.arrayBuffer();
    const lastModified = response.headers.get('last-modified');
    if (!wait.uploadedAt || !lastModified) return true;
    // Last-Modified has whole seconds.
    return Date.parse(lastModified) >= Math.floor(Date.parse(wait.uploadedAt) / 1000) * 1000;
  };

  const confirmImage = (kind: ImageKind, target: ImageTarget): Promise<ConfirmResult> =>
    requestJson(options, 'confirmImage', `${imagePath(target, kind)}/confirm`, { method: 'POST' });
  /** Whether the upload is confirmed now: by this request, or before it (nothing pending, the image visible). */
  const isConfirmed = async (target: ImageTarget, kind: ImageKind, wait: WaitForImageOptions) => {
    try {
      await confirmImage(kind, target);
      return true;
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      if (err.code === 'RECORD_NOT_SET') return false;
      if (err.code === 'PENDING_UPLOAD_NOT_FOUND') return isVisible(target, kind, wait);
      throw err;
    }
  };

  return {
    getNonce: (body) => requestJson(options, 'getNonce', '/auth/nonce', { method: 'POST', body }),
    uploadAvatar: (input) =>
      requestJson(options, 'uploadAvatar', imagePath(input, 'avatar'), {
        method: 'POST',
        formData: uploadForm('avatar', input),
      }),
    uploadHeader: (input) =>
      requestJson(options, 'uploadHeader', imagePath(input, 'header'), {
        method: 'POST',
        formData: uploadForm('header', input),
      }),
    deleteImage: (kind, input) =>
      requestJson(options, 'deleteImage', imagePath(input, kind), {
        method: 'DELETE',
        body: { siweMessage: input.siweMessage, siweSignature: input.siweSignature, address: input.address },
      }),
    confirmImage,
    getTokenMetadata: (chainId, tokenId) =>
      requestJson(options, 'getTokenMetadata', `/metadata/network/${chainId}/token/${tokenId.toString()}`),
    getContractTokenMetadata: (network, contractAddress, tokenId) =>
      requestJson(
        options,
        'getContractTokenMetadata',
        `/${network}/${contractAddress}/${tokenId.toString()}`,
      ),
    getImage: async (target, kind) => {
      const response = await (options.fetch ?? fetch)(serviceUrl(options, imagePath(target, kind)), {
        headers: options.headers,
      });
      if (!response.ok) throw await problemOf(response);
      return {
        bytes: new Uint8Array(await response.arrayBuffer()),
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
        etag: response.headers.get('etag'),
      };
    },
    waitForImage: async (target, kind, wait = {}) => {
      const maxDelay = wait.maxDelayMs ?? 15_000;
      let delay = wait.initialDelayMs ?? 1000;
      while (!(await isConfirmed(target, kind, wait))) {
        await pause(delay, wait.signal);
        delay = Math.min(delay * 2, maxDelay);
      }
      return imageUrl(options.baseUrl, target, kind);
    },
  };
}

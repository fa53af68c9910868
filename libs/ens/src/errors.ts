/** Base class of every error thrown by @nrp/ens; `code` is stable and machine-readable. */
export class EnsError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A name that ENSIP-15 normalisation rejects. `input` is the name as given. */
export class InvalidNameError extends EnsError {
  readonly input: string;
  readonly reason: string;

  constructor(input: string, reason: string, options?: { cause?: unknown }) {
    super('INVALID_NAME', `Invalid ENS name ${JSON.stringify(input)}: ${reason}`, options);
    this.input = input;
    this.reason = reason;
  }
}

export class InvalidAddressError extends EnsError {
  readonly coinType: number;
  readonly input: string;

  constructor(coinType: number, input: string, reason: string, options?: { cause?: unknown }) {
    super('INVALID_ADDRESS', `Invalid address for coin type ${coinType}: ${reason}`, options);
    this.coinType = coinType;
    this.input = input;
  }
}

export class InvalidContenthashError extends EnsError {
  readonly input: string;

  constructor(input: string, reason: string, options?: { cause?: unknown }) {
    super('INVALID_CONTENTHASH', `Invalid contenthash ${JSON.stringify(input)}: ${reason}`, options);
    this.input = input;
  }
}

export class InvalidDnsEncodingError extends EnsError {
  constructor(reason: string) {
    super('INVALID_DNS_ENCODING', `Invalid DNS-encoded name: ${reason}`);
  }
}

export class InvalidTokenIdError extends EnsError {
  readonly input: string;

  constructor(input: string, reason: string) {
    super('INVALID_TOKEN_ID', `Invalid token id ${JSON.stringify(input)}: ${reason}`);
    this.input = input;
  }
}

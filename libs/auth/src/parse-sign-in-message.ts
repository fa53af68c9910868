import { SiweMessage } from 'siwe';
import { ProblemError } from '@nrp/validation';
import { authProblems } from './problems';

/** An EIP-4361 message, parsed. Dates are Date objects; optional fields are absent when the message omits them. */
export interface SignInMessage {
  scheme?: string;
  domain: string;
  /** EIP-55 checksummed, as the message must carry it. */
  address: string;
  statement?: string;
  uri: string;
  version: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime?: Date;
  notBefore?: Date;
  requestId?: string;
  resources?: string[];
}

/** Longer messages are refused before the grammar parser sees them. */
export const MAX_SIGN_IN_MESSAGE_LENGTH = 8192;

function notParsed(reason: string): ProblemError {
  return new ProblemError(
    authProblems.INVALID_SIGNATURE,
    `The sign-in message does not parse as EIP-4361: ${reason}`,
  );
}

function toDate(field: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw notParsed(`${field} "${value}" is not a valid timestamp.`);
  return date;
}

/**
 * What the grammar parser says is wrong, in a form fit for an answer: its first line when that names a line of
 * the message (`line 2: invalid EIP-55 address - 0x...`); otherwise (the parser's state object, `Invalid message:
 * {"success":false,"state":101,...}`) only that the message does not follow the grammar.
 */
function parserReason(err: unknown): string {
  const first = (err instanceof Error ? err.message : '').split('\n')[0]?.trim() ?? '';
  if (/^(line \d+: |invalid message: max line number was \d+$)/i.test(first) && !/[{}]/.test(first))
    return first;
  return 'the text does not follow the EIP-4361 grammar.';
}

/**
 * Parses the message with the EIP-4361 ABNF grammar (the `siwe` package's parser), which also requires an
 * EIP-55 checksummed address. Throws INVALID_SIGNATURE, with a detail saying the message does not parse.
 */
export function parseSignInMessage(message: string): SignInMessage {
  if (message.length > MAX_SIGN_IN_MESSAGE_LENGTH) {
    throw notParsed(`longer than ${MAX_SIGN_IN_MESSAGE_LENGTH} characters.`);
  }
  let parsed: SiweMessage;
  try {
    parsed = new SiweMessage(message);
  } catch (err) {
    throw notParsed(parserReason(err));
  }
  const issuedAt = toDate('Issued At', parsed.issuedAt);
  if (!issuedAt) throw notParsed('Issued At is missing.');
  return {
    ...(parsed.scheme ? { scheme: parsed.scheme } : {}),
    domain: parsed.domain,
    address: parsed.address,
    ...(parsed.statement !== undefined ? { statement: parsed.statement } : {}),
    uri: parsed.uri,
    version: parsed.version,
    chainId: parsed.chainId,
    nonce: parsed.nonce,
    issuedAt,
    ...(parsed.expirationTime !== undefined
      ? { expirationTime: toDate('Expiration Time', parsed.expirationTime) }
      : {}),
    ...(parsed.notBefore !== undefined ? { notBefore: toDate('Not Before', parsed.notBefore) } : {}),
    ...(parsed.requestId !== undefined ? { requestId: parsed.requestId } : {}),
    ...(parsed.resources !== undefined ? { resources: parsed.resources } : {}),
  };
}

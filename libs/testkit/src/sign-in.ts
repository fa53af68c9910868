import { hashMessage, Wallet } from 'ethers';
import type { Express } from 'express';
import { SiweMessage } from 'siwe';
import request from 'supertest';
import { createSiweMessage } from 'viem/siwe';

/** The fields of an EIP-4361 sign-in message. */
export interface SignInMessageFields {
  domain: string;
  address: string;
  statement: string;
  uri: string;
  chainId: number;
  nonce: string;
  /** Default: now. */
  issuedAt?: Date;
  expirationTime?: Date;
  /** Which library writes the message: `siwe` (default) or viem's; the services must accept both. */
  builder?: 'siwe' | 'viem';
}

export function buildSignInMessage(fields: SignInMessageFields): string {
  const { builder, issuedAt = new Date(), expirationTime, ...rest } = fields;
  if (builder === 'viem') {
    return createSiweMessage({
      ...rest,
      version: '1',
      address: rest.address as `0x${string}`,
      issuedAt,
      ...(expirationTime ? { expirationTime } : {}),
    });
  }
  return new SiweMessage({
    ...rest,
    version: '1',
    issuedAt: issuedAt.toISOString(),
    ...(expirationTime ? { expirationTime: expirationTime.toISOString() } : {}),
  }).prepareMessage();
}

/** EIP-191 personal_sign (default), or a signature of the raw message digest (the ERC-1271 test wallet's). */
export async function signSignInMessage(wallet: Wallet, message: string, raw = false): Promise<string> {
  return raw ? wallet.signingKey.sign(hashMessage(message)).serialized : wallet.signMessage(message);
}

/** A fresh sign-in nonce from the service's nonce route (an in-process app, or a service's base URL). */
export async function issueNonce(
  app: Express | string,
  path: string,
  address: string,
  scope: string,
): Promise<string> {
  const res = await request(app).post(path).send({ address, scope }).expect(200);
  return String((res.body as { nonce: unknown }).nonce);
}

/**
 * The signed-request fields shared by metadata uploads and deletes and by mint listings: the EIP-4361 message,
 * its signature and the signer's address.
 */
import { z } from 'zod';
import { ethAddress } from '@nrp/validation';

export const signedRequestSchema = z.strictObject({
  siweMessage: z
    .string()
    .min(1)
    .max(4096)
    // multipart/form-data turns every LF of a field into CRLF (HTML form encoding, as browsers and fetch send
    // it); EIP-4361 messages use LF only, so CRLF is turned back before the signature is checked.
    .transform((message) => message.replace(/\r\n/g, '\n'))
    .meta({
      description:
        'The EIP-4361 message exactly as signed (LF line ends; CRLF from form encoding is accepted).',
    }),
  siweSignature: z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})+$/, 'must be a 0x-prefixed hex string')
    .max(20_000),
  address: ethAddress,
});
export type SignedRequest = z.input<typeof signedRequestSchema>;

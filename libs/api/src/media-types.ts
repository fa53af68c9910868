/** Media types of the API that are not JSON, in a module of their own: the zod-free client imports them. */

/** The offchain export's media type: one JSON record per line. */
export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

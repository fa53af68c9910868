import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { commonProblems, PROBLEM_CONTENT_TYPE, ProblemError } from '@nrp/validation';
import type { Logger } from './logger';

/** The problem for an error Node's HTTP parser raised before the request reached Express. */
function parserProblem(err: NodeJS.ErrnoException): ProblemError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ProblemError(
        commonProblems.HEADERS_TOO_LARGE,
        'The request line and headers exceed the server limit of 16 KB.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_REQUEST_TIMEOUT':
      return new ProblemError(commonProblems.REQUEST_TIMEOUT, 'The request did not arrive in time.');
    default:
      return new ProblemError(commonProblems.MALFORMED_REQUEST, 'The request is not valid HTTP/1.1.');
  }
}

/**
 * The server's `clientError` listener: Node's own answer to a parser error is an empty body (or nothing); this one
 * answers problem+json like every other error, then closes the connection, which the parser cannot resume.
 */
export function clientErrorHandler(logger: Logger) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    // A reset peer, or a socket that already carries a response (its headers sent), gets nothing more. Node keeps
    // the response in progress on the socket as `_httpMessage`; its own default handler checks it the same way.
    const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
      socket.destroy();
      return;
    }
    const problem = parserProblem(err);
    logger.debug({ err, code: problem.code }, 'unparsable request');
    const body = JSON.stringify(problem.toBody());
    socket.end(
      [
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`,
        `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'X-Content-Type-Options: nosniff',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  };
}

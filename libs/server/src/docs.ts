import path from 'node:path';
import express, { type Router } from 'express';
import type { ProblemDef } from '@nrp/validation';

const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const page = (title: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="./swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="./swagger-ui-bundle.js"></script><script src="./init.js"></script></body>
</html>`;

const init = `window.ui = SwaggerUIBundle({ url: '../openapi.json', dom_id: '#swagger-ui' });`;

/** `/docs`: Swagger UI served from the npm package (no CDN), and `/docs/errors`: the problem catalogue. */
export function docsRouter(title: string, problems: ProblemDef[]): Router {
  const router = express.Router();
  const html = page(title);
  router.get('/', (req, res) => {
    // Relative asset URLs need the trailing slash.
    if (!req.originalUrl.split('?')[0]?.endsWith('/')) {
      res.redirect(301, `${req.baseUrl}/`);
      return;
    }
    res.type('html').send(html);
  });
  router.get('/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  router.get('/errors', (_req, res) => {
    res.json({
      problems: problems.map(({ code, status, title, hint }) => ({ code, status, title, hint })),
    });
  });
  router.use(express.static(swaggerDir, { index: false, maxAge: '1d' }));
  return router;
}

import createDOMPurify, { type DOMPurify } from 'dompurify';
import { JSDOM } from 'jsdom';

interface Purifier {
  purify: DOMPurify;
  serializer: { serializeToString(node: Node): string };
}

/**
 * One DOMPurify over one jsdom window, built on first use (creating a window is the slow part) and kept by the
 * service that owns this object; `sanitize` in validation.ts holds the rules.
 */
export class SvgPurifier {
  private built: Purifier | undefined;

  get(): Purifier {
    this.built ??= buildPurifier();
    return this.built;
  }
}

function buildPurifier(): Purifier {
  const { window } = new JSDOM('');
  const purify = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]);
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    const name = data.attrName.toLowerCase();
    const value = data.attrValue.trim();
    // Only same-document references (`#id`): no http(s), data: or javascript: targets.
    if ((name === 'href' || name === 'xlink:href' || name === 'src') && !value.startsWith('#')) {
      data.keepAttr = false;
    }
    if (/url\s*\(/i.test(value) && /url\s*\(\s*['"]?\s*(?!#)/i.test(value)) data.keepAttr = false;
    if (/@import/i.test(value)) data.keepAttr = false;
  });
  return { purify, serializer: new window.XMLSerializer() };
}

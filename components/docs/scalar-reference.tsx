'use client';

import '@scalar/api-reference-react/style.css';
import { ApiReferenceReact } from '@scalar/api-reference-react';
import { useEffect, useState } from 'react';

/*
 * The API reference: Triad's OpenAPI document (/api/openapi.json) rendered by Scalar (design §19) —
 * field tables, examples, code samples in several languages, a "Test request" client, both themes.
 * Bundled, nothing from elsewhere: no telemetry, no web fonts, no hosted client or agent (the page's
 * Content-Security-Policy allows this origin only in any case).
 */
export default function ScalarReference() {
  const dark = useDarkClass();
  return (
    <div data-testid="api-reference" className="scalar-host">
      {/* Drawn again when the theme changes: Scalar reads its theme when it is made. */}
      <ApiReferenceReact
        key={dark ? 'dark' : 'light'}
        configuration={{
          url: '/api/openapi.json',
          telemetry: false,
          withDefaultFonts: false,
          hideClientButton: true,
          agent: { disabled: true },
          mcp: { disabled: true },
          showDeveloperTools: 'never',
          darkMode: dark,
          forceDarkModeState: dark ? 'dark' : 'light',
          hideDarkModeToggle: true,
          documentDownloadType: 'json',
          defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
          hiddenClients: { c: true, clojure: true, csharp: true, dart: true, fsharp: true, julia: true, objc: true, ocaml: true, r: true },
          customCss: WRAPPED_TABS,
        }}
      />
    </div>
  );
}

/**
 * A response card's status tabs wrap onto more rows rather than run off a narrow screen (the chat
 * routes answer ten statuses).
 */
const WRAPPED_TABS = `
.scalar-card-header-title:has(> .tab-list) { white-space: normal; overflow: visible; }
.scalar-card-header-title > .tab-list { flex-wrap: wrap; row-gap: 2px; overflow: visible; }
.scalar-card-header:has(.tab-list) { height: auto; }
`;

/** Whether the page is in the dark theme (the class on <html> the theme toggle keeps). */
function useDarkClass() {
  // Rendered in the browser only (next/dynamic, ssr: false): the class is there to read at once.
  const [dark, setDark] = useState(() => document.documentElement.classList.contains('dark'));
  useEffect(() => {
    const html = document.documentElement;
    const read = () => setDark(html.classList.contains('dark'));
    const watch = new MutationObserver(read);
    watch.observe(html, { attributes: true, attributeFilter: ['class'] });
    return () => watch.disconnect();
  }, []);
  return dark;
}

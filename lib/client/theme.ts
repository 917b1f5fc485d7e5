/*
 * Dark mode (design §19): the system's choice (`prefers-color-scheme`) unless the person chose one with
 * the header's toggle, which the browser remembers under THEME_KEY. THEME_SCRIPT runs in <head> before
 * the page is painted (no flash of the other theme); the toggle keeps the `dark` class on <html> in
 * step with the choice and, when following the system, with the system's changes.
 */
export const THEME_KEY = 'triad-theme';

export const THEME_SCRIPT = `(function(){try{var t=localStorage.getItem('${THEME_KEY}');var d=t==='dark'||(t!=='light'&&matchMedia('(prefers-color-scheme: dark)').matches);document.documentElement.classList.toggle('dark',d);document.documentElement.style.colorScheme=d?'dark':'light'}catch(e){}})()`;

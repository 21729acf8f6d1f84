/** What tests of invocations that overlap use to hold one open while another runs. */

/** A promise the test resolves: a handler awaits `wait`, the test calls `open`. */
export function gate(): { readonly wait: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

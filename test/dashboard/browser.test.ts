// The dashboard in a real browser: Debian's Chromium, headless, driven by playwright-core, over
// `queue-runtime dashboard` on a SQLite store (with a receiving store) and over `queue-runtime
// serve`, both run as child processes. Every wait is on a condition, with generous timeouts.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type QueueClient } from "../../src/index.js";
import { Deliveries, sqliteStore } from "../../src/receiving/index.js";
import { type PrintedDashboard, printedDashboard, runCli } from "./cli-process.js";
import { afterFile, type ReceiverItems, receivingStore, scratchFile } from "./fixtures.js";

/** Where the test leaves its screenshot (docs/dashboard.png is one of them). */
const SCREENSHOT = process.env.DASHBOARD_SCREENSHOT ?? join(tmpdir(), "queue-runtime-dashboard.png");
/** How long any one wait may take: a loaded 2-core machine is slow, a hung page is not. */
const WAIT_MS = 30_000;

const DEAD_LETTER = {
  body: '{"order":"o-1041","total":"74.50"}',
  reason: "PaymentDeclined",
  description: "the card was declined twice by the issuer",
};
/** A body that would run script if the page ever read a message as HTML. */
const HOSTILE_BODY = "<img src=x onerror=\"document.title='owned'\">";

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

/** A fresh browser context (no storage shared with another) and its page, closed after the file. */
async function freshPage(): Promise<Page> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(WAIT_MS);
  afterFile(() => context.close());
  return context.newPage();
}

/** The cell of a queue's count in the queue table. */
function count(page: Page, queue: string, which: "active" | "deadLettered"): Locator {
  return page.locator(`tr[data-queue="${queue}"] td[data-count="${which}"]`);
}

/** Waits until a locator's text is `text`. */
async function expectText(locator: Locator, text: string): Promise<void> {
  await expect.poll(() => locator.textContent(), { timeout: WAIT_MS }).toBe(text);
}

/** The notice line, once it says something matching `says`. */
async function expectNotice(page: Page, says: RegExp): Promise<void> {
  await expect.poll(() => page.locator("#notice").textContent(), { timeout: WAIT_MS }).toMatch(says);
}

/** Opens a queue by its link in the queue table. */
async function openQueue(page: Page, queue: string): Promise<void> {
  await page.locator(`tr[data-queue="${queue}"] a`).click();
  await expectText(page.locator("#queue-name"), queue);
}

/** Opens the dead letter whose reason is `reason` and checks what it shows. */
async function openDeadLetter(page: Page, letter: typeof DEAD_LETTER, source: string): Promise<void> {
  const opened = page.locator("details.dead-letter").filter({ hasText: letter.reason });
  // Opened by a click, again if the list was read anew and redrawn at that moment.
  await expect
    .poll(
      async () => {
        if ((await opened.getAttribute("open")) === null) await opened.locator("summary").click();
        return opened.getByText(letter.description, { exact: true }).isVisible();
      },
      { timeout: WAIT_MS },
    )
    .toBe(true);
  const fields = await opened.locator("dt, dd").allTextContents();
  expect(fields).toEqual(
    expect.arrayContaining([
      "Reason",
      letter.reason,
      "Description",
      letter.description,
      "Source queue",
      source,
    ]),
  );
  await opened.locator("pre.body").getByText(letter.body, { exact: true }).waitFor();
}

/** Tries a change on a page opened without the token: refused, and the count stays. */
async function expectRefusedWithoutToken(endpoint: string, queue: string, active: string): Promise<void> {
  const page = await freshPage();
  await page.goto(`${endpoint}/#queue=${queue}`);
  await expectText(count(page, queue, "active"), active);
  await page.locator("#send-body").fill("no token, no send");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expectNotice(page, /^Refused \(403\): /);
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Purge", exact: true }).click();
  await expectNotice(page, /^Refused \(403\): /);
  await expectText(count(page, queue, "active"), active);
}

describe("the dashboard in Chromium over a sqlite store", () => {
  let url: string;
  let receiving: { path: string; items: ReceiverItems };
  let client: QueueClient;
  let started: PrintedDashboard;

  beforeAll(async () => {
    url = `sqlite:${scratchFile("browser-queues.db")}`;
    client = await createClient(url);
    afterFile(() => client.close());
    await client.admin.createQueue("orders");
    await client.admin.createQueue("payments");
    await client.sendMessage("orders", DEAD_LETTER.body);
    const failing = await client.receiveMessage("orders");
    await client.deadLetterMessage(failing!.receiptHandle, DEAD_LETTER.reason, DEAD_LETTER.description);
    await client.sendMessage("orders", '{"order":"o-1042","total":"129.90"}');
    await client.sendMessages("payments", ['{"payment":"p-88","order":"o-1042"}', HOSTILE_BODY]);
    receiving = await receivingStore();
    const run = runCli(["dashboard", "--url", url, "--port", "0", "--receiving", receiving.path]);
    started = await printedDashboard(run);
  }, 120_000);

  it("shows counts that change after a send, dead letters with their reason, redrive, purge, retry and dismiss", async () => {
    const page = await freshPage();
    await page.goto(started.address);
    await openQueue(page, "orders");
    await expectText(count(page, "orders", "active"), "1");
    await expectText(count(page, "orders", "deadLettered"), "1");

    // A send by the application shows without a reload; so does one from the page.
    await client.sendMessage("orders", '{"order":"o-1043","total":"18.00"}');
    await expectText(count(page, "orders", "active"), "2");
    await page.locator("#send-body").fill('{"order":"o-1044","total":"9.99"}');
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expectNotice(page, /^Sent \S+ to orders\.$/);
    await expectText(count(page, "orders", "active"), "3");

    await openDeadLetter(page, DEAD_LETTER, "orders");
    await page.locator(`tr[data-item="${receiving.items.parked.id}"]`).waitFor();
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await page.getByRole("button", { name: "Redrive", exact: true }).click();
    await expectNotice(page, /^Redrove 1 messages from orders-dlq/);
    await expectText(count(page, "orders", "deadLettered"), "0");
    await expectText(count(page, "orders", "active"), "4");
    await page.locator("#dead-letters").getByText("No dead letters.").waitFor();
    await page.locator("#messages .preview").getByText(DEAD_LETTER.body, { exact: true }).waitFor();

    // Purge asks first: dismissed, nothing goes; accepted, the queue is emptied.
    await openQueue(page, "payments");
    await expectText(count(page, "payments", "active"), "2");
    // A body is text, never markup.
    await page.locator("#messages .preview").getByText(HOSTILE_BODY, { exact: true }).waitFor();
    expect(await page.title()).toBe("queue-runtime dashboard");
    expect(await page.locator("#messages img").count()).toBe(0);
    page.once("dialog", (dialog) => void dialog.dismiss());
    await page.getByRole("button", { name: "Purge", exact: true }).click();
    await expectNotice(page, /^Nothing was purged\.$/);
    expect(await client.admin.getQueueStats("payments")).toMatchObject({ active: 2 });
    page.once("dialog", (dialog) => {
      expect(dialog.type()).toBe("confirm");
      expect(dialog.message()).toContain("payments");
      void dialog.accept();
    });
    await page.getByRole("button", { name: "Purge", exact: true }).click();
    await expectText(count(page, "payments", "active"), "0");

    // The receiver's parked message is retried, its failed delivery dismissed: both leave the list.
    const parked = page.locator(`tr[data-item="${receiving.items.parked.id}"]`);
    await parked.getByRole("button", { name: "Retry", exact: true }).click();
    await parked.waitFor({ state: "detached" });
    const delivery = page.locator(`tr[data-item="${receiving.items.delivery.id}"]`);
    await delivery.getByRole("button", { name: "Dismiss", exact: true }).click();
    await delivery.waitFor({ state: "detached" });
    const store = sqliteStore(receiving.path);
    try {
      await store.open();
      expect(await new Deliveries(store).list()).toEqual([]);
    } finally {
      await store.close();
    }
  }, 180_000);

  it("refuses a change from a page opened without the token", async () => {
    const active = String((await client.admin.getQueueStats("orders")).active);
    await expectRefusedWithoutToken(started.endpoint, "orders", active);
  }, 120_000);

  it("keeps a working token when the token form is submitted empty", async () => {
    const page = await freshPage();
    await page.goto(started.address);
    await openQueue(page, "orders");
    const allowed = "Changes allowed with the token given.";
    await expectText(page.locator("#token-state"), allowed);
    await page.locator("#token-input").fill("   ");
    await page.getByRole("button", { name: "Use token", exact: true }).click();
    await expectText(page.locator("#token-state"), allowed);
    await page.locator("#send-body").fill("sent after an empty token form");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expectNotice(page, /^Sent \S+ to orders\.$/);
  }, 120_000);
});

describe("the dashboard in Chromium over queue-runtime serve", () => {
  let sqs: QueueClient;
  let started: PrintedDashboard;

  beforeAll(async () => {
    const run = runCli(["serve", "--db", scratchFile("browser-serve.db"), "--port", "0"]);
    started = await printedDashboard(run);
    sqs = await createClient({
      provider: {
        type: "sqs",
        endpoint: started.endpoint,
        region: "us-east-1",
        credentials: { accessKeyId: "test", secretAccessKey: "test" },
      },
    });
    afterFile(() => sqs.close());
    await sqs.admin.createQueue("invoices");
    await sqs.sendMessage("invoices", '{"invoice":"i-501"}');
  }, 120_000);

  it("shows a count change after a send, a dead letter's reason, and redrives it back to its queue", async () => {
    const page = await freshPage();
    await page.goto(started.address);
    await openQueue(page, "invoices");
    await expectText(count(page, "invoices", "active"), "1");
    await sqs.sendMessage("invoices", '{"invoice":"i-502"}');
    await expectText(count(page, "invoices", "active"), "2");

    const letter = {
      body: '{"invoice":"i-501"}',
      reason: "InvalidInvoice",
      description: "the total does not match its lines",
    };
    const received = await sqs.receiveMessage("invoices", 5_000);
    expect(received?.text()).toBe(letter.body);
    await sqs.deadLetterMessage(received!.receiptHandle, letter.reason, letter.description);
    await expectText(count(page, "invoices", "deadLettered"), "1");
    await openDeadLetter(page, letter, "invoices");

    await page.getByRole("button", { name: "Redrive", exact: true }).click();
    await expectText(count(page, "invoices", "deadLettered"), "0");
    await expectText(count(page, "invoices", "active"), "2");
    await page.locator("#messages .preview").getByText(letter.body, { exact: true }).waitFor();
  }, 180_000);

  it("refuses a change from a page opened without the token", async () => {
    await expectRefusedWithoutToken(started.endpoint, "invoices", "2");
  }, 120_000);
});

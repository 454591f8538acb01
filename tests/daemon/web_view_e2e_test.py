"""Issue 16's web view in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`, driven by python3-selenium) loads `GET /` from a daemon rolling a RollingSync
set out on kubesim, and the test reads the page's DOM as the rollout advances: step 1's tiles
turn healthy and the step complete, the current-step marker moves, the manual gate (maxUpdate 0)
is marked and holds; then the token is entered, pause and resume work, and the sync button on
the gate's app lets the rollout continue to the end.

Every wait is a WebDriverWait on a condition (or the harness's wait_for), never a sleep.
Screenshots go to $WEB_VIEW_SCREENSHOTS (the build directory under CTest) or the temp dir.
"""
import json
import os
import tempfile
import unittest

from daemon_harness import DaemonEnv, appset_yaml

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

DEV, QA = "sim-0-guestbook", "sim-1-guestbook"
PROD = ["sim-2-guestbook", "sim-3-guestbook", "sim-4-guestbook"]
SET = 'section[data-appset="guestbook"]'
SCREENSHOTS = os.environ.get("WEB_VIEW_SCREENSHOTS") or tempfile.gettempdir()


# The WCAG 2 contrast ratio of each text element's colour against the first opaque background
# among it and its ancestors; returns [lowest ratio, "selector: colours"].
CONTRAST_JS = """
function rgb(c) { const m = c.match(/[\\d.]+/g).map(Number); return m; }
function lum(c) {
  const [r, g, b] = rgb(c).slice(0, 3).map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function background(e) {
  for (; e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    const a = rgb(c);
    if (a.length < 4 || a[3] === 1) return c;
  }
  return "rgb(255, 255, 255)";
}
let worst = [100, ""];
const sel = "h1, h2, h3, .state, .step-meta, .step-count, .app-name, .cluster, .rollout, " +
  ".health, .sync, .app-message, .marker, #conn, button, label";
for (const e of document.querySelectorAll(sel)) {
  if (!e.offsetParent || !e.textContent.trim()) continue;
  const fg = getComputedStyle(e).color, bg = background(e);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  const ratio = (a + 0.05) / (b + 0.05);
  if (ratio < worst[0]) worst = [ratio, e.className + " '" + e.textContent.trim().slice(0, 30) +
    "': " + fg + " on " + bg];
}
return worst;
"""


def step(n):
    return '%s li.step[data-step="%d"]' % (SET, n)


def tile(app):
    return '%s li.app[data-app="%s"]' % (SET, app)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1180,1020", "--force-prefers-reduced-motion"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


class WebView(unittest.TestCase):
    def setUp(self):
        # Pods become ready 1.5 s after a change, so each step is visible for a while; prod has
        # three apps and maxUpdate 1, so its step is current for several seconds.
        self.env = DaemonEnv(clusters=5, kubesim_args=("--ready-ms", "1500"))
        self.addCleanup(self.env.close)
        self.env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", self.env.elements(["env-dev", "env-qa", "env-prod", "env-prod",
                                            "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], 0), (["env-prod"], 1)],
            repo_url=self.env.repo_url))
        self.driver = browser()
        self.addCleanup(self.driver.quit)

    # --- reading the page ------------------------------------------------------------------

    # The page re-renders as data arrives, so reads are single scripts (atomic against a
    # re-render) and clicks retry on an element replaced between finding and clicking it.
    def attr(self, selector, name):
        return self.driver.execute_script(
            "const e = document.querySelector(arguments[0]);"
            "return e ? e.getAttribute(arguments[1]) : null;", selector, name)

    def text(self, selector):
        return self.driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';",
            selector)

    def count(self, selector):
        return self.driver.execute_script(
            "return document.querySelectorAll(arguments[0]).length;", selector)

    def click(self, selector):
        def clicked():
            try:
                # Dispatched to the element itself, not to its coordinates: the page re-renders
                # as the stream delivers, and a coordinate click can land on the button that
                # replaced it there (Pause becomes Resume in place).
                element = self.driver.find_element(By.CSS_SELECTOR, selector)
                self.driver.execute_script("arguments[0].click();", element)
                return True
            except (StaleElementReferenceException, NoSuchElementException):
                return False
        self.wait("a click on " + selector, clicked, timeout=10)

    def wait(self, what, predicate, timeout=60):
        """Waits until predicate() is truthy; on timeout names `what` and shows the page and
        the daemon's view."""
        def check(_):
            try:
                return predicate()
            except StaleElementReferenceException:  # the page re-rendered under us
                return False
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(check)
        except Exception:
            self.shot("failure")
            raise AssertionError("timed out waiting for %s\npage:\n%s\nappset: %s\nlog:\n%s" % (
                what, self.text("main"), json.dumps(self.env.appset("guestbook")),
                self.env.log_tail()))

    def shot(self, name):
        path = os.path.join(SCREENSHOTS, "web-view-%s.png" % name)
        # The body, not the window: the picture ends where the page does.
        self.driver.find_element(By.TAG_NAME, "body").screenshot(path)
        print("screenshot:", path)
        return path

    def step_state(self, n):
        return self.attr(step(n), "data-state")

    def current_step(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])]"
            ".map((e) => Number(e.dataset.step));", SET + ' li.step[aria-current="step"]')

    def tile_state(self, app):
        return (self.attr(tile(app), "data-health"), self.attr(tile(app), "data-sync"),
                self.attr(tile(app), "data-rollout"))

    def worst_contrast(self):
        """The lowest WCAG contrast ratio between the text and the background behind it over
        the page's text elements (headings, step details, tiles, markers), as rendered."""
        return self.driver.execute_script(CONTRAST_JS)

    def csp_violations(self):
        return [e["message"] for e in self.driver.get_log("browser")
                if "Content Security Policy" in e["message"] or "Uncaught" in e["message"]]

    # --- the test --------------------------------------------------------------------------

    def test_rollout_in_the_browser(self):
        d = self.driver
        self.env.start()
        d.get(self.env.api + "/")
        self.assertEqual(d.title, "fleetwave rollouts")

        # The set as three columns; step 2 is the manual gate, in words as well as in style.
        self.wait("three steps", lambda: self.count(SET + " li.step") == 3)
        self.assertEqual(self.attr(step(2), "data-gate"), "true")
        self.assertIn("manual gate", self.text(step(2)))
        self.assertIsNone(self.attr(step(1), "data-gate"))
        self.assertIn("maxUpdate 0", self.text(step(2)))
        self.assertIn("envLabel In (env-prod)", self.text(step(3)))

        # Step 1 completes: its tile turns Healthy/Synced and the marker moves to the gate,
        # where the qa app waits.
        self.wait("step 1 complete and the gate current", lambda:
                  self.step_state(1) == "complete" and self.current_step() == [2])
        self.assertEqual(self.tile_state(DEV), ("Healthy", "Synced", "Healthy"))
        self.assertEqual(self.attr(tile(QA), "data-rollout"), "Waiting")
        self.assertIn("\u2714 Healthy", self.text(tile(DEV)))  # a word and an icon, not colour
        self.assertIn("1/1", self.text(step(1)))
        self.assertIn("0/1", self.text(step(2)))
        self.assertIn("current step", self.text(step(2)))
        for app in PROD:
            self.assertEqual(self.attr(tile(app), "data-rollout"), "Waiting")
        # Read-only without a token: no buttons at all.
        self.assertEqual(self.count("button[data-action]"), 0)

        # With the token: the actions appear. Pause and resume the set through the page.
        d.find_element(By.ID, "token").send_keys(self.env.token)
        self.click("#token-save")
        # The tile's button (the filter list below the set has one per row as well).
        sync_gate = tile(QA) + ' button[data-action="sync"]'
        self.wait("the sync button", lambda: self.count(sync_gate) == 1)
        self.assertEqual(d.execute_script(
            "return sessionStorage.getItem('fleetwave.token')"), self.env.token)
        self.click(SET + ' button[data-action="pause"]')
        self.wait("the set shown paused", lambda:
                  self.attr(SET, "data-paused") == "true" and "Paused" in self.text(SET))
        self.assertIn("paused", self.text(SET + " .callout.paused"))
        self.click(SET + ' button[data-action="resume"]')
        self.wait("the set resumed", lambda: self.attr(SET, "data-paused") is None
                  and self.count(SET + ' button[data-action="pause"]') == 1)

        # Skip asks for a reason in a dialog; cancelling it changes nothing.
        self.click(tile(QA) + ' button[data-action="skip"]')
        self.wait("the skip dialog", lambda: d.find_element(By.ID, "skip-dialog").is_displayed())
        self.assertIn(QA, d.find_element(By.ID, "skip-title").text)
        self.click("#skip-cancel")
        self.wait("the skip dialog closed", lambda:
                  not d.find_element(By.ID, "skip-dialog").is_displayed())

        # Abort asks for confirmation: cancelled, nothing changes; confirmed, the set shows
        # aborted; a resume ends the abort.
        abort = SET + ' button[data-action="abort"]'
        self.click(abort)
        self.wait("the abort dialog", lambda: d.find_element(By.ID, "abort-dialog").is_displayed())
        self.assertIn("guestbook", d.find_element(By.ID, "abort-title").text)
        self.click("#abort-cancel")
        self.wait("the abort dialog closed", lambda:
                  not d.find_element(By.ID, "abort-dialog").is_displayed())
        self.assertNotEqual(self.attr(SET, "data-state"), "aborted")
        self.click(abort)
        self.wait("the abort dialog again", lambda:
                  d.find_element(By.ID, "abort-dialog").is_displayed())
        self.click("#abort-confirm")
        self.wait("the set shown aborted", lambda: self.attr(SET, "data-state") == "aborted")
        self.assertIn("aborted", self.text(SET + " .callout.aborted"))
        self.click(SET + ' button[data-action="resume"]')
        self.wait("the abort ended", lambda: self.attr(SET, "data-state") != "aborted"
                  and self.count(abort) == 1)

        # Still at the gate (nothing was synced behind the page's back).
        self.assertEqual(self.current_step(), [2])
        self.assertEqual(self.env.applies("sim-1"), [])
        self.shot("gate")

        # Sync the gate's app: the rollout continues, the marker moves to step 3, and the set
        # completes with every tile Healthy.
        self.click(sync_gate)
        self.wait("the sync accepted", lambda:
                  self.attr("#action-status", "data-ok") == "true"
                  and ("sync of application " + QA) in self.text("#action-status"))
        self.wait("step 2 complete and step 3 current", lambda:
                  self.step_state(2) == "complete" and self.current_step() == [3])
        self.shot("prod")
        self.wait("the rollout complete", lambda:
                  self.attr(SET, "data-state") == "complete", timeout=90)
        self.assertEqual(self.current_step(), [])
        for n in (1, 2, 3):
            self.assertEqual(self.step_state(n), "complete")
        for app in [DEV, QA] + PROD:
            self.wait(app + " Healthy and Synced", lambda app=app:
                      self.tile_state(app) == ("Healthy", "Synced", "Healthy"))
        self.assertIn("3/3", self.text(step(3)))
        self.assertIn("Complete", self.text(SET + " .appset-head"))
        self.assertTrue(self.env.rollout_completed("guestbook"))
        self.shot("complete")

        # Readable in both colour schemes: every text at least 4.5:1 against its background.
        for scheme in ("light", "dark"):
            d.execute_cdp_cmd("Emulation.setEmulatedMedia", {
                "features": [{"name": "prefers-color-scheme", "value": scheme}]})
            ratio, where = self.worst_contrast()
            self.assertGreaterEqual(ratio, 4.5, "%s scheme: %s" % (scheme, where))
        self.shot("complete-dark")

        # Issue 29: Rollback asks for confirmation and an optional revision, as Abort asks:
        # cancelled, nothing reaches the daemon; confirmed, the daemon accepts it and stores it
        # with the caller and the revision (requested, or already started by the next decision).
        rollback = SET + ' button[data-action="rollback"]'
        self.click(rollback)
        self.wait("the rollback dialog", lambda:
                  d.find_element(By.ID, "rollback-dialog").is_displayed())
        self.assertIn("guestbook", d.find_element(By.ID, "rollback-title").text)
        self.click("#rollback-cancel")
        self.wait("the rollback dialog closed", lambda:
                  not d.find_element(By.ID, "rollback-dialog").is_displayed())
        rollout = self.env.appset("guestbook")["status"]["rollout"]
        self.assertNotIn("rollbackRequested", rollout)
        self.assertNotIn("rollback", rollout)
        self.click(rollback)
        self.wait("the rollback dialog again", lambda:
                  d.find_element(By.ID, "rollback-dialog").is_displayed())
        d.find_element(By.ID, "rollback-to").send_keys(self.env.head())
        self.click("#rollback-confirm")
        self.wait("the rollback accepted", lambda:
                  self.attr("#action-status", "data-ok") == "true"
                  and "rollback by" in self.text("#action-status"))
        rollout = self.env.appset("guestbook")["status"]["rollout"]
        stored = rollout.get("rollback") or rollout.get("rollbackRequested")
        self.assertIsNotNone(stored, rollout)
        self.assertEqual(stored["to"], self.env.head())
        self.assertTrue(stored["by"].startswith("127.0.0.1:"), stored)
        # The next decision starts it: the set reads Rolled back and shows the rollback, by
        # whom and to which revision, with its apps counted by phase; once it finished, the
        # Rollback button is offered again.
        box = SET + " .callout.rollback"
        self.wait("the rollback shown", lambda: self.attr(box, "data-reason") == "Operator"
                  and self.attr(SET, "data-state") == "rolledback")
        self.assertIn("Rollback by 127.0.0.1:", self.text(box))
        self.assertIn("to revision " + self.env.head(), self.text(box))
        self.assertEqual(self.count(box + " li[data-phase]"), 4)
        self.wait("the rollback finished", lambda: self.attr(box, "data-finished") == "true"
                  and self.count(rollback) == 1, timeout=90)
        self.shot("rolled-back")

        self.assertEqual(self.csp_violations(), [])

    def test_polls_when_the_streams_are_blocked(self):
        """A daemon (or a proxy) without the watch streams: the page says it polls, and still
        follows the rollout."""
        d = self.driver
        self.env.start()
        d.execute_cdp_cmd("Network.enable", {})
        d.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*watch=1*"]})
        d.get(self.env.api + "/")
        self.wait("polling mode", lambda: self.attr("#conn", "data-mode") == "poll"
                  and "polling" in self.text("#conn"))
        self.wait("step 1 complete and the gate current", lambda:
                  self.step_state(1) == "complete" and self.current_step() == [2])
        # The page polls the sets and the apps separately: the tile may lag the step by a poll.
        self.wait("the dev tile healthy and synced", lambda:
                  self.tile_state(DEV) == ("Healthy", "Synced", "Healthy"))
        self.assertEqual(self.attr("#conn", "data-mode"), "poll")

    def test_a_daemon_that_needs_a_token_to_read(self):
        """With apiReadTokenFile the page itself is served, but the API is not: the page says
        it needs a token and shows the sets once the read token is entered; a mutation with
        the read token is refused, and the page says so."""
        d = self.driver
        read_token = "read-" + self.env.token
        path = os.path.join(self.env.config_dir, "read-token")
        with open(path, "w") as f:
            f.write(read_token + "\n")
        with open(self.env.config_path, "a") as f:
            f.write("apiReadTokenFile: read-token\n")
        self.env.start()
        d.get(self.env.api + "/")
        self.wait("the page asking for a token", lambda: "needs a token" in self.text("#conn"))
        self.assertEqual(self.count(SET), 0)
        d.find_element(By.ID, "token").send_keys(read_token)
        self.click("#token-save")
        self.wait("the set shown", lambda: self.count(SET + " li.step") == 3
                  and "live:" in self.text("#conn"))
        # The read token opens no mutation: a click on sync is refused and says why.
        self.click('button[data-action="sync"][data-target="%s"]' % DEV)
        self.wait("the refusal", lambda: self.attr("#action-status", "data-ok") == "false"
                  and "refused" in self.text("#action-status"))

if __name__ == "__main__":
    unittest.main()

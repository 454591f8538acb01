#!/usr/bin/python3
"""Issue 33's first-load budget at 20,000 apps: bench/web_view_server serves a synthetic
StatusBoard (default one set of 20,000 apps; --sets 10 for ten of 2,000) through the daemon's
ApiServer, and headless Chromium loads the web view three times. Prints, per load, the bytes the
browser received (CDP Network.dataReceived + response headers) until the page was live and the
first render of the set (ms after navigation start), and exits 1 if a load missed 200 KB / 1 s.

Usage: bench/web_view_load.py [--build build-release] [--apps 20000] [--sets 1]
"""
import argparse
import json
import os
import subprocess
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build-release")
    p.add_argument("--apps", type=int, default=20000)
    p.add_argument("--sets", type=int, default=1)
    args = p.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = args.build if os.path.isabs(args.build) else os.path.join(root, args.build)
    server = subprocess.Popen([os.path.join(build, "bench", "web_view_server"),
                               "--apps=%d" % args.apps, "--sets=%d" % args.sets],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline().split()
        if len(line) != 2 or line[0] != "port":
            sys.exit("web_view_server did not start")
        url = "http://127.0.0.1:%s/" % line[1]
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", "--window-size=1280,1400"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=os.environ.get(
            "CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
        failed = False
        try:
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
            for run in range(3):
                driver.get("about:blank")
                driver.get_log("performance")
                driver.get(url)
                WebDriverWait(driver, 30, poll_frequency=0.05).until(lambda d: d.execute_script(
                    "return document.body.dataset.firstRender && "
                    "document.getElementById('conn').textContent.startsWith('live:') && "
                    "!document.getElementById('explore').hidden && "
                    "/match/.test(document.getElementById('explore-info').textContent)"))
                first = int(driver.execute_script("return document.body.dataset.firstRender"))
                received = 0
                for entry in driver.get_log("performance"):
                    m = json.loads(entry["message"])["message"]
                    if m["method"] == "Network.dataReceived":
                        received += m["params"].get("encodedDataLength", 0)
                    elif m["method"] == "Network.responseReceived":
                        received += m["params"]["response"].get("encodedDataLength", 0)
                ok = received < 200 * 1024 and first < 1000
                failed = failed or not ok
                print("web-view-load: apps=%d sets=%d run=%d bytes=%d first-render-ms=%d %s" % (
                    args.apps, args.sets, run + 1, received, first, "ok" if ok else "OVER BUDGET"))
        finally:
            driver.quit()
        return 1 if failed else 0
    finally:
        server.stdin.close()
        server.wait(10)


if __name__ == "__main__":
    sys.exit(main())

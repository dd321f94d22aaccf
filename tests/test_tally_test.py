#!/usr/bin/env python3
"""tools/test_tally.py counts what ran: skips apart and with their reasons,
capability skips as failures on CI, and targets without a status as failed."""

import os
import subprocess
import sys
import tempfile
import unittest

TALLY = sys.argv.pop(1) if len(sys.argv) > 1 else "tools/test_tally.py"

XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="S">
    <testcase name="Passes" status="run" result="completed" classname="S"/>
    <testcase name="Fails" status="run" result="completed" classname="S">
      <failure message="boom"/>
    </testcase>
    <testcase name="NeedsRing" status="run" result="skipped" classname="S">
      <skipped message="tests/batch_read_test.cc:36&#x0A;io_uring unavailable here (EPERM)"/>
    </testcase>
    <testcase name="NeedsScript" status="run" result="skipped" classname="S">
      <skipped message="tests/x.cc:1&#x0A;no script(1)"/>
    </testcase>
    <testcase name="DISABLED_Off" status="notrun" result="suppressed" classname="S"/>
  </testsuite>
</testsuites>
"""

LOG = """//tests:a_test                                                  FAILED in 1.0s
//tests:b_test                                                  NO STATUS
//tests:c_test                                                  (cached) PASSED in 0.1s
"""


class TallyTest(unittest.TestCase):
    def run_tally(self, *extra):
        with tempfile.TemporaryDirectory() as work:
            for name in ("a_test", "c_test"):
                os.makedirs(os.path.join(work, "logs", "tests", name))
                with open(os.path.join(work, "logs", "tests", name, "test.xml"), "w") as f:
                    f.write(XML if name == "a_test" else XML.split("<testcase name=\"Fails\"")[0]
                            + "</testsuite></testsuites>")
            log = os.path.join(work, "log")
            with open(log, "w") as f:
                f.write(LOG)
            failures, skips = os.path.join(work, "failures"), os.path.join(work, "skips")
            out = subprocess.run(
                [sys.executable, TALLY, log, os.path.join(work, "logs"), "--suite", "s",
                 "--failures", failures, "--skips", skips, *extra],
                check=True, capture_output=True, text=True).stdout.split()
            return [int(n) for n in out], open(failures).read(), open(skips).read()

    def test_skips_are_counted_apart_with_their_reasons(self):
        (passed, failed, skipped), failures, skips = self.run_tally("--has", "io_uring")
        # a_test: 1 passed, 1 failed, 2 skipped; b_test: no status, 1 failed;
        # c_test: 1 passed.
        self.assertEqual((passed, failed, skipped), (2, 2, 2))
        self.assertIn("S.NeedsRing: io_uring unavailable here (EPERM)", skips)
        self.assertIn("S.NeedsScript: no script(1)", skips)
        self.assertIn("//tests:b_test", failures)

    def test_a_capability_the_machine_has_fails_when_strict(self):
        (passed, failed, skipped), failures, skips = self.run_tally(
            "--has", "io_uring,avx2", "--strict")
        self.assertEqual((passed, failed, skipped), (2, 3, 1))
        self.assertIn("NeedsRing", failures)
        self.assertIn("this machine has io_uring", failures)
        self.assertNotIn("NeedsRing", skips)

    def test_a_capability_the_machine_lacks_stays_a_skip_when_strict(self):
        (passed, failed, skipped), _, _ = self.run_tally("--has", "o_direct", "--strict")
        self.assertEqual((passed, failed, skipped), (2, 2, 2))


if __name__ == "__main__":
    unittest.main()

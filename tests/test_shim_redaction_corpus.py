"""The redaction corpus (tests/data/redaction-corpus.txt) through the static
shim: no marked secret is ever shown. The over-redaction figure is printed
(scripts/redaction-corpus lists each line)."""
from redaction_corpus import load, run_corpus, summary
from shim_support import SHIM, ShimTestCase


class RedactionCorpus(ShimTestCase):

    def test_the_corpus_is_as_large_as_promised(self):
        cases = load()
        self.assertGreaterEqual(len(cases), 300)
        self.assertGreaterEqual(len({argv[0] for _, argv in cases}), 40)
        self.assertGreaterEqual(sum(1 for _, argv in cases if any("⟦" in a for a in argv)), 150)

    def test_no_secret_leaks(self):
        s = summary(run_corpus(SHIM))
        print("\n  corpus: %d lines, %d tools, %d secrets; leaks %d; over-redacted lines %d"
              % (s["lines"], s["tools"], s["secrets"], s["leaked_secrets"], len(s["over_lines"])))
        self.assertEqual([o.describe() for o in s["leak_lines"]], [])
        # Lines without secrets come out unchanged (over-redaction with
        # nothing to protect is the cheapest kind to avoid).
        self.assertEqual([o.describe() for o in s["over_clean_lines"]], [])

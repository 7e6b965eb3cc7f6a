#include "progress.h"

#include <doctest/doctest.h>

TEST_CASE("the progress line: records, bytes of the total, rate and ETA") {
  using progress::Meter;
  CHECK(Meter::Format("import", 0, 0, 12000000, 0) ==
        "import: 0 records, 0 B of 12.0 MB (0%), ETA --");
  CHECK(Meter::Format("import", 12345, 4500000, 12000000, 1.5) ==
        "import: 12345 records, 4.5 MB of 12.0 MB (37%), 3.0 MB/s, ETA 3 s");
  CHECK(Meter::Format("verify a.jsonl", 7, 2000000000, 5000000000, 100) ==
        "verify a.jsonl: 7 records, 2.0 GB of 5.0 GB (40%), 20.0 MB/s, ETA 2m30s");
  CHECK(Meter::Format("x", 1, 1000, 1000, 2) ==
        "x: 1 records, 1.0 KB of 1.0 KB (100%), 500 B/s, ETA 0 s");
  CHECK(Meter::Format("x", 1, 100, 10000000000, 1) ==
        "x: 1 records, 100 B of 10.0 GB (0%), 100 B/s, ETA 27777h46m");
}

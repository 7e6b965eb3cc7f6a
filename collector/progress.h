// Progress of a long `import` or `verify`, for a person at a terminal: one
// status line on stderr (records, bytes, rate, ETA), redrawn a few times a
// second and cleared at the end. Nothing at all when stderr is not a
// terminal (a pipe, a file, a service's journal), and nothing for inputs
// too small to take a moment.
#ifndef AGT_COLLECTOR_PROGRESS_H_
#define AGT_COLLECTOR_PROGRESS_H_

#include <stdint.h>

#include <string>

namespace progress {

class Meter {
 public:
  // `what` names the work ("import", "verify FILE"); `total_bytes` is what
  // will be read in all (for the percentage and the ETA). On when stderr
  // is a terminal and total_bytes is at least kMinBytes.
  Meter(std::string what, uint64_t total_bytes);
  ~Meter() { Finish(); }
  Meter(const Meter&) = delete;
  Meter& operator=(const Meter&) = delete;

  static constexpr uint64_t kMinBytes = 1u << 20;

  // Per record, cheap: the clock is read every 256th call and the line is
  // redrawn at most 4 times a second.
  void Update(uint64_t records, uint64_t bytes);
  // Draws the final numbers once, then clears the line (idempotent).
  void Finish();

  // The status line, e.g.
  // "import: 12345 records, 4.5 MB of 12.0 MB (37%), 3.0 MB/s, ETA 3 s".
  static std::string Format(const std::string& what, uint64_t records, uint64_t bytes,
                            uint64_t total_bytes, double seconds);

 private:
  void Draw();

  std::string what_;
  uint64_t total_;
  bool on_;
  uint64_t records_ = 0, bytes_ = 0;
  uint32_t calls_ = 0;
  double start_ = 0, last_draw_ = 0;
};

}  // namespace progress

#endif  // AGT_COLLECTOR_PROGRESS_H_

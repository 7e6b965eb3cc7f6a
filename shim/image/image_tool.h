// The image tool: agt-deny-shim's own subcommands that wire the shim into an
// image root (install, allow, harden) and audit a built root (verify).
//
// argv holds the arguments after the subcommand name; the return value is
// the process exit status (0 ok, 1 failure or drift, 2 usage error). Nothing
// here exits: only the shim's main() does.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_TOOL_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_TOOL_H_

namespace image_tool {

int Install(int argc, char** argv);
int Allow(int argc, char** argv);
int Harden(int argc, char** argv);
int Verify(int argc, char** argv);

}  // namespace image_tool

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_TOOL_H_

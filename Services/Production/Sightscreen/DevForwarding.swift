import CommandLineSupport
import Foundation

/// `sightscreen dev …` (the development launcher) and `sightscreen token` / `dev-keys` (dev JWTs, the dev key
/// pair) are harness and not linked into this CLI (the operator tool that ships). The command replaces this
/// process with `sightscreen-dev` from the same directory (same pid, the command's arguments), so they keep
/// working in a development build and say plainly what is missing elsewhere.
enum DevForwarding {
    static let executableName = "sightscreen-dev"

    /// Execs `sightscreen-dev` with `arguments` for `command` (named in the error); returns only by throwing.
    static func exec(command: String, _ arguments: ArraySlice<String>) throws -> Never {
        let directory = (Self.ownPath() as NSString).deletingLastPathComponent
        let path = (directory as NSString).appendingPathComponent(executableName)
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw UsageError(message: "\(command): \(executableName) is not next to this sightscreen (\(directory)); the demo "
                + "launcher and the dev tokens are development harness: build it with `swift build --product \(executableName)` "
                + "or run scripts/demo")
        }
        let argv = [executableName] + arguments
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArguments.append(nil)
        execv(path, &cArguments)
        throw UsageError(message: "\(command): cannot run \(path): \(String(cString: strerror(errno)))")
    }

    private static func ownPath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

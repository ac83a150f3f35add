import Foundation
import SharedTestSupport
import Spawning
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `Subprocess`, the harness's posix_spawn child: output, exit codes and signals, the environment,
/// default signal handling, no descriptor leaked into the child, and waits that end.
@Suite struct SubprocessTests {
    @Test func readsStandardOutputAndTheExitCode() async throws {
        let child = try Subprocess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"],
                                   standardOutput: .pipe, standardError: .pipe)
        let output = String(decoding: await child.standardOutput!.readAll(), as: UTF8.self)
        let errors = String(decoding: await child.standardError!.readAll(), as: UTF8.self)
        #expect(await child.waitForExit() == .exited(3))
        #expect(output == "out\n" && errors == "err\n")
        #expect(!child.isRunning && child.termination?.status == 3)
    }

    @Test func passesExactlyTheEnvironmentGiven() async throws {
        let (status, output) = try await run("/bin/sh", ["-c", "echo \"$SPAWN_TEST-$HOME\""], environment: ["SPAWN_TEST": "given"])
        #expect(status == .exited(0))
        #expect(output == "given-\n", "only the given variables, not this process's HOME")
    }

    @Test func aSignalEndsItAndIsReportedAsSuch() async throws {
        let child = try Subprocess(executable: "/bin/sleep", arguments: ["60"])
        #expect(await child.waitForExit(timeout: .milliseconds(200)) == nil, "still sleeping")
        child.send(SIGKILL)
        let ended = await child.waitForExit(timeout: .seconds(30))
        #expect(ended == .signaled(SIGKILL))
        #expect(ended?.description.hasPrefix("signal 9") == true)
    }

    /// exec keeps ignored signals and the blocked mask; the child must start with neither, or a test
    /// process ignoring SIGTERM would make every child deaf to it.
    @Test func theChildStartsWithDefaultSignalHandling() async throws {
        let previous = signal(SIGTERM, SIG_IGN)
        defer { signal(SIGTERM, previous) }
        let (status, output) = try await run("/bin/grep", ["-E", "^(SigIgn|SigBlk):", "/proc/self/status"])
        #expect(status == .exited(0))
        // Bit n-1 is signal n. Only the standard signals (1–31) are checked: glibc keeps its two internal
        // real-time signals (32, 33) ignored and does not let a program change them.
        let masks = output.split(separator: "\n").compactMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        #expect(masks.count == 2 && masks.allSatisfy { $0 & 0x7fff_ffff == 0 }, "\(output)")
    }

    /// Only 0, 1 and 2 reach the child (a pipe end leaked into a long-lived child keeps another
    /// reader from ever seeing end of file).
    @Test func noDescriptorOfThisProcessLeaksIntoTheChild() async throws {
        let open = Pipe()  // not close-on-exec: posix_spawn alone would pass it on
        defer { try? open.fileHandleForWriting.close() }
        let (status, output) = try await run("/bin/ls", ["/proc/self/fd"])
        #expect(status == .exited(0))
        let descriptors = Set(output.split(separator: "\n").compactMap { Int32($0) })
        // ls itself holds one more: the directory it lists.
        #expect(descriptors.subtracting([0, 1, 2]).count <= 1, "leaked: \(descriptors.sorted()) (the pipe is \(open.fileHandleForWriting.fileDescriptor))")
        #expect(!descriptors.contains(open.fileHandleForWriting.fileDescriptor))
    }

    @Test func writesIntoAGivenFile() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        let child = try Subprocess(executable: "/bin/sh", arguments: ["-c", "echo one; echo two >&2"],
                                   standardOutput: .file(handle), standardError: .file(handle))
        try handle.close()
        #expect(await child.waitForExit() == .exited(0))
        #expect(try String(contentsOf: url, encoding: .utf8) == "one\ntwo\n")
    }

    @Test func aMissingExecutableIsATypedError() {
        #expect {
            _ = try Subprocess(executable: "/nonexistent/spawn-test")
        } throws: { error in
            guard case .spawnFailed(let executable, let code)? = error as? SubprocessError else { return false }
            return executable == "/nonexistent/spawn-test" && code == ENOENT
        }
    }

    @Test func aNewProcessGroupIsLedByTheChild() async throws {
        let child = try Subprocess(executable: "/bin/sleep", arguments: ["60"], newProcessGroup: true)
        defer { child.send(SIGKILL) }
        #expect(getpgid(child.pid) == child.pid)
    }

    /// Many children at once, each waited for without a cooperative thread blocking.
    @Test func manyChildrenAtOnceAllEnd() async throws {
        let codes = try await withThrowingTaskGroup(of: Termination.self) { group in
            for code in 0..<40 {
                group.addTask { try await run("/bin/sh", ["-c", "exit \(code)"]).status }
            }
            return try await group.reduce(into: [Termination]()) { $0.append($1) }
        }
        #expect(Set(codes) == Set((0..<40).map { Termination.exited(Int32($0)) }))
    }

    private func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws
        -> (status: Termination, output: String)
    {
        let child = try Subprocess(executable: executable, arguments: arguments, environment: environment, standardOutput: .pipe)
        let output = String(decoding: await child.standardOutput!.readAll(), as: UTF8.self)
        return (await child.waitForExit(), output)
    }
}

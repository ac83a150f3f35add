import DevStack
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The supervisor's kill -9 and start again, as the fault tests use it: the second process is
/// started, logged after the first in the same log file, and is running.
@Suite struct SupervisorRestartTests {
    @Test func aKilledProcessStartsAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString.prefix(6))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let supervisor = DevSupervisor(binDirectory: directory, logDirectory: directory)
        let spec = DevProcessSpec(name: "sleeper", executable: "/bin/sh", arguments: ["-c", "echo up; exec sleep 60"],
                                  readiness: .logLine("up"))
        try await supervisor.start(spec)
        let first = try #require(await supervisor.statuses().first)
        #expect(first.running)
        try await supervisor.kill9("sleeper")
        #expect(await supervisor.exited() == ["sleeper"])
        try await supervisor.start(spec)
        let second = try #require(await supervisor.statuses().first)
        #expect(second.running && second.pid != first.pid)
        let log = try String(contentsOfFile: second.logFile, encoding: .utf8)
        #expect(log.components(separatedBy: "start /bin/sh").count == 3, "two start banners: \(log)")
        await supervisor.stopAll(grace: .seconds(5))
        #expect(await supervisor.statuses().isEmpty)
    }
}

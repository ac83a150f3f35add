import Foundation
import HTTP2
import HTTP2Server
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(2))) struct HTTP2RoundTripTests {
    @Test func oneRequestRoundTripsOverTLSWithALPNh2() async throws {
        let server = try TestTLS.server(handler: TestTLS.echo)
        defer { server.stop() }
        let client = try TestTLS.client(port: server.port)
        defer { client.shutdown() }
        let response = try await client.send(HTTP2Request(
            method: "POST", path: "/3/device/abc", headers: [HTTP2Header("x-test", "yes")], body: Array("hello".utf8)))
        #expect(response.status == 200)
        #expect(response.header("x-path") == "/3/device/abc")
        #expect(response.header("x-method") == "POST")
        #expect(response.header("x-test") == "yes")
        #expect(response.body == Array("hello".utf8))
    }

    /// A body past `maxResponseBodyBytes` fails its request (never a body cut short that a caller would take as whole);
    /// one at the limit comes whole, and the connection serves the next request.
    @Test func aResponseBodyPastTheLimitFailsTheRequestInsteadOfBeingCut() async throws {
        // Answers `/bytes/N` with N bytes.
        let server = try TestTLS.server { request in
            HTTP2ServerResponse(status: 200, headers: [], body: Array(repeating: 7, count: Int(request.path.split(separator: "/").last ?? "") ?? 0))
        }
        defer { server.stop() }
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: "127.0.0.1", port: server.port, caFile: TestTLS.certificate.certificateFile, connections: 1,
            requestTimeout: .seconds(10), connectTimeout: .seconds(5), maxResponseBodyBytes: 100_000))
        defer { client.shutdown() }
        let atLimit = try await client.send(HTTP2Request(method: "GET", path: "/bytes/100000"))
        #expect(atLimit.status == 200 && atLimit.body.count == 100_000)
        do {
            let cut = try await client.send(HTTP2Request(method: "GET", path: "/bytes/300000"))
            Issue.record("a 300,000-byte body past the 100,000-byte limit came back with \(cut.body.count) bytes")
        } catch let error as HTTP2Error {
            #expect(error == .responseTooLarge(limit: 100_000))
            #expect(!error.isRetryable)
        }
        #expect(try await client.send(HTTP2Request(method: "GET", path: "/bytes/5")).body.count == 5)
    }

    @Test func hostNameVerificationUsesServerName() async throws {
        let server = try TestTLS.server(handler: TestTLS.echo)
        defer { server.stop() }
        let byName = try TestTLS.client(port: server.port, serverName: "localhost")
        defer { byName.shutdown() }
        #expect(try await byName.send(HTTP2Request(path: "/x")).status == 200)
    }

    @Test func untrustedCertificateFailsTheHandshake() async throws {
        let server = try TestTLS.server(handler: TestTLS.echo)
        defer { server.stop() }
        let client = try TestTLS.client(port: server.port, caFile: nil)  // system CAs do not know the mock
        defer { client.shutdown() }
        await #expect(throws: HTTP2Error.self) { try await client.send(HTTP2Request(path: "/x")) }
    }

    @Test func wrongServerNameFailsVerification() async throws {
        let server = try TestTLS.server(handler: TestTLS.echo)
        defer { server.stop() }
        let client = try TestTLS.client(port: server.port, serverName: "api.push.apple.com")
        defer { client.shutdown() }
        do {
            _ = try await client.send(HTTP2Request(path: "/x"))
            Issue.record("expected a verification failure")
        } catch let error as HTTP2Error {
            #expect(error.isRetryable)
            #expect(error.description.contains("TLS"))
        }
    }

    @Test func connectionRefusedFailsFastAndIsRetryable() async throws {
        let client = try TestTLS.client(port: 1)
        defer { client.shutdown() }
        do {
            _ = try await client.send(HTTP2Request(path: "/x"))
            Issue.record("expected connect failure")
        } catch let error as HTTP2Error {
            #expect(error.isRetryable)
        }
    }

    @Test func manyConcurrentRequestsAreMultiplexedOverThePool() async throws {
        let server = try TestTLS.server(maxConcurrentStreams: 100, handler: TestTLS.echo)
        defer { server.stop() }
        let client = try TestTLS.client(port: server.port, connections: 3)
        defer { client.shutdown() }
        let count = 3000
        let connectionIDs = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await client.send(HTTP2Request(path: "/r/\(index)", body: Array("\(index)".utf8)))
                    #expect(response.status == 200)
                    #expect(response.body == Array("\(index)".utf8))
                    return response.header("x-connection") ?? ""
                }
            }
            var seen: Set<String> = []
            for try await id in group { seen.insert(id) }
            return seen
        }
        #expect(connectionIDs.count == 3)
        #expect(server.connectionsAccepted == 3)
        #expect(server.streamsOpened == count)
        #expect(client.statistics.peakStreamsPerConnection <= 100)
    }

    @Test func aBatchGetsEveryAnswerInRequestOrderWithinTheStreamLimit() async throws {
        let server = try TestTLS.server(maxConcurrentStreams: 50) { request in
            request.path.hasSuffix("7")
                ? HTTP2ServerResponse(status: 410, body: Array(#"{"reason":"Unregistered"}"#.utf8))
                : HTTP2ServerResponse(status: 200, body: request.body)
        }
        defer { server.stop() }
        let client = try TestTLS.client(port: server.port, connections: 2)
        defer { client.shutdown() }
        let count = 1500
        let results = await client.send((0..<count).map { HTTP2Request(path: "/b/\($0)", body: Array("\($0)".utf8)) })
        #expect(results.count == count)
        for (index, answer) in results.enumerated() {
            let response = try answer.result.get()
            if index % 10 == 7 {
                #expect(response.status == 410)
            } else {
                #expect(response.status == 200)
                #expect(response.body == Array("\(index)".utf8))
            }
            #expect(answer.elapsed > .zero)
        }
        #expect(server.streamsOpened == count)
        #expect(client.statistics.peakStreamsPerConnection <= 50)
        #expect(await client.send([]).isEmpty)
    }

    @Test func aBatchToAnUnreachableServerAnswersEveryRequestWithARetryableError() async throws {
        let client = try TestTLS.client(port: 1)
        defer { client.shutdown() }
        let results = await client.send((0..<20).map { HTTP2Request(path: "/u/\($0)") })
        #expect(results.count == 20)
        for answer in results {
            guard case .failure(let error) = answer.result else {
                Issue.record("expected a connect failure, got \(answer.result)")
                continue
            }
            #expect(error.isRetryable)
        }
    }

    @Test func maxConcurrentStreamsIsNeverExceeded() async throws {
        let server = try TestTLS.server(maxConcurrentStreams: 3) { request in
            HTTP2ServerResponse(status: 200, delay: .milliseconds(5))
        }
        defer { server.stop() }
        let client = try TestTLS.client(port: server.port, connections: 1)
        defer { client.shutdown() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                group.addTask {
                    let response = try await client.send(HTTP2Request(path: "/s/\(index)"))
                    #expect(response.status == 200)
                }
            }
            try await group.waitForAll()
        }
        #expect(server.peakConcurrentStreams == 3)
        #expect(client.statistics.peakStreamsPerConnection == 3)
        #expect(server.streamsOpened == 60)
    }

    @Test func loweredStreamLimitMidFlightIsFollowed() async throws {
        let server = try TestTLS.server(maxConcurrentStreams: 50) { _ in
            HTTP2ServerResponse(status: 200, delay: .milliseconds(2))
        }
        defer { server.stop() }
        let client = try TestTLS.client(port: server.port, connections: 1)
        defer { client.shutdown() }
        #expect(try await client.send(HTTP2Request(path: "/warm")).status == 200)
        server.setMaxConcurrentStreams(2)
        try await Task.sleep(for: .milliseconds(100))
        // One more round trip on the same connection: its answer comes after the new SETTINGS,
        // so the client has them before the burst even on a loaded machine.
        #expect(try await client.send(HTTP2Request(path: "/sync")).status == 200)
        let before = server.peakConcurrentStreams
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let response = try await client.send(HTTP2Request(path: "/l/\(index)"))
                    #expect(response.status == 200)
                }
            }
            try await group.waitForAll()
        }
        #expect(before <= 2)
        #expect(server.peakConcurrentStreams <= 2)
    }

    @Test func goAwayMidBatchLosesNothing() async throws {
        let server = try TestTLS.server(maxConcurrentStreams: 100, goAwayAfterStreams: 25) { request in
            HTTP2ServerResponse(status: 200, body: Array(request.path.utf8), delay: .milliseconds(1))
        }
        defer { server.stop() }
        let client = try TestTLS.client(port: server.port, connections: 2)
        defer { client.shutdown() }
        let count = 500
        let results = try await withThrowingTaskGroup(of: (Int, HTTP2Response).self) { group in
            for index in 0..<count {
                group.addTask { (index, try await client.send(HTTP2Request(path: "/g/\(index)"))) }
            }
            var all: [Int: HTTP2Response] = [:]
            for try await (index, response) in group { all[index] = response }
            return all
        }
        #expect(results.count == count)
        for (index, response) in results {
            #expect(response.status == 200)
            #expect(response.body == Array("/g/\(index)".utf8))
        }
        #expect(server.goAwaysSent >= count / 25 - 1)
        #expect(client.statistics.goAwaysReceived >= count / 25 - 1)
        // Each request was answered exactly once: the server handled no extra copies.
        #expect(server.streamsOpened == count)
    }

    @Test func keepalivePingsAnIdleConnection() async throws {
        let server = try TestTLS.server(handler: TestTLS.echo)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: "127.0.0.1", port: server.port, caFile: TestTLS.certificate.certificateFile, connections: 1,
            pingInterval: .milliseconds(200), pingTimeout: .seconds(2)))
        defer { client.shutdown() }
        #expect(try await client.send(HTTP2Request(path: "/p")).status == 200)
        try await Task.sleep(for: .milliseconds(700))
        #expect(client.statistics.pingsSent >= 1)
        #expect(try await client.send(HTTP2Request(path: "/p2")).status == 200)
        #expect(client.statistics.connectionsOpened == 1)
    }

    @Test func reconnectsAfterTheServerGoesAway() async throws {
        let certificate = TestTLS.certificate
        let first = try TestTLS.server(handler: TestTLS.echo)
        let port = first.port
        let client = try TestTLS.client(port: port, connections: 1)
        defer { client.shutdown() }
        #expect(try await client.send(HTTP2Request(path: "/a")).status == 200)
        first.stop()
        try await Task.sleep(for: .milliseconds(100))
        let second = try HTTP2Server(
            configuration: HTTP2ServerConfiguration(port: port, certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile),
            handler: TestTLS.echo)
        defer { second.stop() }
        var status = 0
        for _ in 0..<20 where status != 200 {
            status = (try? await client.send(HTTP2Request(path: "/b")))?.status ?? 0
            if status != 200 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(status == 200)
        #expect(client.statistics.connectionsOpened == 2)
    }
}

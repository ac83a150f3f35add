@testable import DeviceSimulator
import Crypto
import DevCredentials
import APNs
import APNsMock
import Contracts
import Foundation
import HTTP2
import Runtime
import SharedTestSupport
import Testing

/// The real path: pushes sent over APNs HTTP/2 to an in-process mock-apns, read back by the
/// simulator's control client over TLS (`/mock/deliveries?since=`) and applied to the devices.
@Suite(.timeLimit(.minutes(2))) struct MockAPNsIntakeTests {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let bundleID = "com.sightscreen.app"
    static let key: APNsSigningKey = try! APNsSigningKey(pem: APNsSigningKey.generatePrivateKeyPEM())
    static let certificate: SelfSignedCertificate = try! SelfSignedCertificate.loadOrGenerate(
        in: NSTemporaryDirectory() + "device-sim-tests-\(getpid())")

    static func mock() throws -> MockAPNsServer {
        try MockAPNsServer(configuration: MockAPNsConfiguration(
            certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile, teamID: teamID,
            keys: [keyID: try APNsSigningKey(pem: key.publicKeyPEM)], bundleID: bundleID))
    }

    static func sender(port: Int) throws -> APNsClient {
        try APNsClient(configuration: APNsClientConfiguration(
            teamID: teamID, keyID: keyID, signingKey: key, bundleID: bundleID, production: .local(port: port),
            sandbox: .local(port: port), caFile: certificate.certificateFile, connectionsPerHost: 1, requestTimeout: .seconds(10)))
    }

    static func push(_ sender: APNsClient, _ payload: String, to token: String, kind: PushKind) async -> APNsOutcome {
        await sender.send(APNsPush(
            payload: Array(payload.utf8), device: APNsDeviceToken(token, environment: .sandbox), type: kind == .alert ? .alert : .liveActivity,
            priority: 10, expiration: nil, apnsID: APNsID.derive(jobID: UUID().uuidString, token: token)))
    }

    @Test func deliveriesFlowFromMockAPNsToTheDevices() async throws {
        let server = try Self.mock()
        defer { server.stop() }
        let sender = try Self.sender(port: server.port)
        defer { sender.shutdown() }
        let control = try MockAPNsControlClient(baseURL: "https://127.0.0.1:\(server.port)", caFile: Self.certificate.certificateFile)
        defer { control.shutdown() }
        // An earlier push to somebody else: listed, not routed.
        #expect(await Self.push(sender, Sample.payload(.update, Sample.state()), to: HexToken.random(length: 160), kind: .liveActivityUpdate).action == .delivered)

        let backend = FakeBackend()
        let fleet = DeviceFleet(configuration: Sample.configuration(devices: 2, follow: ["m1"])) { _ in backend }
        await fleet.launchAll(follow: ["m1"], appVersion: "1.10.0", concurrency: 2, logger: Sample.logger)
        let intake = DeliveryIntake(source: control, fleet: fleet, batchLimit: 100, logger: Sample.logger)
        let polling = Task { await intake.run(interval: .milliseconds(20)) }
        defer { polling.cancel() }

        let device = fleet.devices[1]
        #expect(await Self.push(sender, Sample.payload(.start, Sample.state(updatedAt: 100)), to: device.pushToStartToken, kind: .liveActivityStart).action == .delivered)
        #expect(await eventually { !backend.tokens(deviceId: device.deviceId).isEmpty }, "no update token posted after the push-to-start")
        let token = try #require(backend.tokens(deviceId: device.deviceId).first?.token)
        let final = Sample.state(updatedAt: 300, score: "181/4", phase: .ended, result: "India won by 6 wickets")
        #expect(await Self.push(sender, Sample.payload(.update, Sample.state(updatedAt: 200, score: "150/3")), to: token, kind: .liveActivityUpdate).action == .delivered)
        #expect(await Self.push(sender, Sample.payload(.end, final), to: token, kind: .liveActivityEnd).action == .delivered)
        #expect(await eventually { await device.snapshot().activities.first?.state == "ended" }, "the end push never ended the activity")
        let snapshot = await device.snapshot()
        #expect(snapshot.activities.first?.contentState == final)
        #expect(snapshot.pushesReceived == 3)
        #expect(await fleet.devices[0].snapshot().pushesReceived == 0)
        #expect(await intake.unrouted == 1)
        #expect(await intake.cursor == 4)

        // invalidate-token through the same control client: the next push to the token is refused.
        try await control.markUnregistered(token: token)
        #expect(await Self.push(sender, Sample.payload(.update, Sample.state(updatedAt: 400)), to: token, kind: .liveActivityUpdate).action == .tokenInvalid)
    }

    @Test func sinceAndLimitPageThroughTheLog() async throws {
        let server = try Self.mock()
        defer { server.stop() }
        let sender = try Self.sender(port: server.port)
        defer { sender.shutdown() }
        let control = try MockAPNsControlClient(baseURL: "https://127.0.0.1:\(server.port)", caFile: Self.certificate.certificateFile)
        defer { control.shutdown() }
        let tokens = (0..<5).map { _ in HexToken.random(length: 160) }
        for token in tokens {
            #expect(await Self.push(sender, Sample.payload(.update, Sample.state()), to: token, kind: .liveActivityUpdate).action == .delivered)
        }
        let all = try await control.deliveries(since: 0, limit: 100)
        #expect(all.map(\.sequence) == [1, 2, 3, 4, 5] && all.map(\.token) == tokens)
        let page = try await control.deliveries(since: 2, limit: 2)
        #expect(page.map(\.sequence) == [3, 4])
        #expect(try await control.deliveries(since: 5, limit: 100).isEmpty)
        #expect(server.deliveries(token: tokens[3], since: 3).map(\.sequence) == [4])
        #expect(server.deliveries(token: tokens[3], since: 4).isEmpty)
        // Sequences keep counting after a reset, so a poller never re-reads or skips.
        server.reset()
        #expect(await Self.push(sender, Sample.payload(.update, Sample.state()), to: tokens[0], kind: .liveActivityUpdate).action == .delivered)
        #expect(try await control.deliveries(since: 5, limit: 100).map(\.sequence) == [6])
    }
}

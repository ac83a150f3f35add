import APNs
import APNsMock
import Foundation
import HTTP2
import Runtime
import SharedTestSupport
import Testing

/// The broadcast transport end to end over TLS HTTP/2: `APNsChannelClient` against the mock's management
/// listeners, `APNsClient.sendBroadcast` against its push listener, Apple's answers and their order, and the
/// mock's fan-out to subscribers.
@Suite(.timeLimit(.minutes(2))) struct BroadcastChannelTests {
    static func requestID() -> String { UUID().uuidString.lowercased() }

    /// A mock with both management listeners, the push client and the channel client of one app.
    struct Rig {
        let mock: MockAPNsServer
        let client: APNsClient
        let channels: APNsChannelClient

        init(faults: MockAPNsFaults = MockAPNsFaults(), channelLimit: Int = 10_000, clock: any WallClock = SystemWallClock(),
             clientClock: any WallClock = SystemWallClock()) throws {
            mock = try Fixtures.broadcastMock(faults: faults, channelLimit: channelLimit, clock: clock)
            client = try Fixtures.client(port: mock.port, clock: clientClock)
            channels = try Fixtures.channelClient(mock, tokens: client.tokens)
        }

        func create(_ environment: APNsServerEnvironment, _ policy: APNsChannelStoragePolicy) async throws -> APNsChannelID {
            try await channels.createChannel(environment: environment, storagePolicy: policy, requestID: BroadcastChannelTests.requestID()).get()
        }

        func stop() {
            channels.shutdown()
            client.shutdown()
            mock.stop()
        }
    }

    static func broadcast(_ channel: APNsChannelID, environment: APNsServerEnvironment = .production, priority: Int = 10,
                          expiration: Int64 = 0, payload: [UInt8] = Fixtures.broadcastUpdate) -> APNsBroadcast {
        APNsBroadcast(payload: payload, channel: channel, environment: environment, priority: priority, expiration: expiration,
                      requestID: requestID())
    }

    @Test func channelsAreCreatedReadListedAndDeletedPerEnvironment() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let (mock, client, channels) = (rig.mock, rig.client, rig.channels)
        let first = try await rig.create(.production, .noMessageStored)
        let second = try await rig.create(.production, .mostRecentMessageStored)
        let sandbox = try await rig.create(.sandbox, .noMessageStored)
        for id in [first, second, sandbox] { #expect(APNsChannelID.isWellFormed(id.rawValue), "base64: \(id)") }
        #expect(Set([first, second, sandbox]).count == 3)
        #expect(try await channels.readChannel(first, environment: .production).get() == APNsChannelInfo(storagePolicy: .noMessageStored, pushType: "LiveActivity"))
        #expect(try await channels.readChannel(second, environment: .production).get().storagePolicy == .mostRecentMessageStored)
        #expect(Set(try await channels.listChannels(environment: .production).get()) == [first, second])
        #expect(try await channels.listChannels(environment: .sandbox).get() == [sandbox])
        // A sandbox channel does not exist for the production management API.
        let crossed = await channels.readChannel(sandbox, environment: .production)
        guard case .failure(let error) = crossed else { Issue.record("expected ChannelNotRegistered"); return }
        #expect(error.status == 400 && error.reason == .channelNotRegistered && error.action == .channelInvalid && !error.isRetryable)
        try await channels.deleteChannel(first, environment: .production).get()
        #expect(try await channels.listChannels(environment: .production).get() == [second])
        guard case .failure(let gone) = await channels.deleteChannel(first, environment: .production) else {
            Issue.record("a deleted channel must be gone"); return
        }
        #expect(gone.reason == .channelNotRegistered)
        #expect(mock.counters.channels == ["production": 1, "sandbox": 1])
        // Issue 42: refused management requests (the read across environments, the second delete) are not refused
        // pushes; a match-day report reading `rejected` must not see them.
        #expect(mock.counters.channelRequestsRejected == ["ChannelNotRegistered": 2] && mock.counters.rejected.isEmpty)
    }

    @Test func theChannelLimitIsPerEnvironmentAndTheCapabilitySwitchRefusesEverything() async throws {
        let rig = try Rig(channelLimit: 2)
        defer { rig.stop() }
        let (mock, client, channels) = (rig.mock, rig.client, rig.channels)
        for _ in 0..<2 {
            _ = try await rig.create(.production, .noMessageStored)
        }
        guard case .failure(let full) = await channels.createChannel(environment: .production, storagePolicy: .noMessageStored, requestID: Self.requestID()) else {
            Issue.record("expected CannotCreateChannelConfig"); return
        }
        #expect(full.reason == .cannotCreateChannelConfig && full.status == 400 && full.action == .permanentFailure)
        _ = try await rig.create(.sandbox, .noMessageStored)
        let channel = try #require(try await channels.listChannels(environment: .production).get().first)
        mock.setFaults(MockAPNsFaults(broadcastDisabled: true))
        guard case .failure(let disabled) = await channels.listChannels(environment: .production) else { Issue.record("expected FeatureNotEnabled"); return }
        #expect(disabled.reason == .featureNotEnabled && disabled.status == 400)
        let refused = await client.sendBroadcast(Self.broadcast(channel))
        #expect(refused.reason == .featureNotEnabled && refused.action == .permanentFailure)
    }

    @Test func aBroadcastReachesEverySubscriberOnceAndLeavesTheDevicePushCountersAlone() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let (mock, client, channels) = (rig.mock, rig.client, rig.channels)
        let channel = try await rig.create(.sandbox, .noMessageStored)
        let other = try await rig.create(.sandbox, .noMessageStored)
        let subscribers = ["sub-a", "sub-b", "sub-c"]
        for subscriber in subscribers { #expect(mock.subscribe(subscriber, to: channel.rawValue)) }
        #expect(mock.subscribe("sub-other", to: other.rawValue))
        #expect(mock.setCountedSubscribers(1000, of: channel.rawValue))
        let sent = [Self.broadcast(channel, environment: .sandbox, priority: 10), Self.broadcast(channel, environment: .sandbox, priority: 5)]
        for broadcast in sent {
            let outcome = await client.sendBroadcast(broadcast)
            #expect(outcome.action == .delivered && outcome.status == 200 && outcome.attempts == 1, "\(outcome)")
            #expect(outcome.requestID == broadcast.requestID)
            #expect(outcome.uniqueID.map(APNsID.isValid) == true)
        }
        let recorded = mock.broadcasts(channel: channel.rawValue)
        #expect(recorded.map(\.requestId) == sent.map(\.requestID))
        #expect(recorded.map(\.priority) == [10, 5])
        #expect(recorded.allSatisfy { $0.subscribers == 1003 && $0.environment == "sandbox" && $0.expiration == 0 })
        for subscriber in subscribers {
            let copies = mock.deliveries(token: subscriber)
            #expect(copies.map(\.apnsID) == sent.map(\.requestID), "one copy of each broadcast for \(subscriber)")
            #expect(copies.allSatisfy { $0.channelId == channel.rawValue && $0.payload == String(decoding: Fixtures.broadcastUpdate, as: UTF8.self) })
        }
        #expect(mock.deliveries(token: "sub-other").isEmpty, "another channel's subscriber gets nothing")
        let counters = mock.counters
        #expect(counters.broadcastsAccepted == 2 && counters.broadcastCopies == 2006 && counters.repeatedBroadcasts == 0)
        #expect(counters.accepted == 0 && counters.distinctTokens == 0, "copies are not device pushes")
        // The same request id again (a replay) is counted as a repeat.
        _ = await client.sendBroadcast(sent[0])
        #expect(mock.counters.repeatedBroadcasts == 1)
    }

    @Test func broadcastsAreCheckedInApplesOrder() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let (mock, client, channels) = (rig.mock, rig.client, rig.channels)
        let stored = try await rig.create(.production, .mostRecentMessageStored)
        let unstored = try await rig.create(.production, .noMessageStored)
        let http = try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: "127.0.0.1", port: mock.port, caFile: Fixtures.certificate.certificateFile, connections: 1))
        defer { http.shutdown() }
        let authorization = try client.tokens.authorization()
        func send(_ edit: (inout HTTP2Request) -> Void, channel: APNsChannelID = stored) async throws -> (Int, String?) {
            var request = client.requests.broadcastRequest(Self.broadcast(channel, expiration: Fixtures.now + 600), authorization: authorization)
            edit(&request)
            let response = try await http.send(request)
            return (response.status, APNsClient.reasonText(response))
        }
        func header(_ name: String, _ value: String?) -> (inout HTTP2Request) -> Void {
            { request in
                request.headers.removeAll { $0.name == name }
                if let value { request.headers.append(HTTP2Header(name, value)) }
            }
        }
        #expect(try await send { _ in } == (200, nil))
        #expect(try await send({ _ in }, channel: unstored) == (400, "BadExpirationDate"), "a No Message Stored channel takes expiration 0 only")
        #expect(try await send { $0.path = "/4/broadcasts/apps/com.sightscreen.app.push-type.liveactivity" } == (400, "TopicDisallowed"))
        #expect(try await send { $0.path = "/4/broadcasts/apps/com.other.app" } == (403, "TopicMismatch"))
        #expect(try await send(header("authorization", nil)) == (403, "MissingProviderToken"))
        #expect(try await send(header("apns-request-id", "not-a-uuid")) == (400, "BadMessageId"))
        #expect(try await send(header("apns-channel-id", nil)) == (400, "MissingChannelId"))
        #expect(try await send(header("apns-channel-id", "not base64!")) == (400, "BadChannelId"))
        #expect(try await send(header("apns-channel-id", "QUJDRA==")) == (400, "ChannelNotRegistered"))
        #expect(try await send(header("apns-push-type", nil)) == (400, "MissingPushType"))
        #expect(try await send(header("apns-push-type", "alert")) == (400, "InvalidPushType"))
        #expect(try await send(header("apns-push-type", "LiveActivity")) == (200, nil), "any casing of liveactivity")
        #expect(try await send(header("apns-expiration", nil)) == (400, "BadExpirationDate"))
        #expect(try await send(header("apns-priority", "7")) == (400, "BadPriority"))
        #expect(try await send(header("apns-priority", "1")) == (200, nil))
        #expect(try await send { $0.body = [] } == (400, "PayloadEmpty"))
        #expect(try await send { $0.body = Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{"x":"\#(String(repeating: "a", count: 5200))"}}}"#.utf8) } == (413, "PayloadTooLarge"))
        #expect(try await send { $0.body = Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{"x":"\#(String(repeating: "a", count: 4500))"}}}"#.utf8) } == (200, nil), "a broadcast may exceed 4,096 bytes")
        #expect(try await send { $0.body = Array("not json".utf8) } == (400, "BadRequestPayload"))
        #expect(try await send { $0.body = Array(#"{"aps":{"timestamp":1,"event":"start","content-state":{}}}"#.utf8) }.0 == 400, "a broadcast cannot start")
        // Two faults in one request: the earlier check answers (the channel before the priority, the token first of all).
        #expect(try await send { request in
            header("apns-channel-id", "QUJDRA==")(&request)
            header("apns-priority", "7")(&request)
        } == (400, "BadPriority"))
        #expect(try await send { request in
            header("authorization", nil)(&request)
            header("apns-channel-id", nil)(&request)
        } == (403, "MissingProviderToken"))
        // The management API's own checks.
        let manage = try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: "127.0.0.1", port: mock.managementPort(for: .production)!, caFile: Fixtures.certificate.certificateFile, connections: 1))
        defer { manage.shutdown() }
        func create(_ body: String, path: String = "/1/apps/com.sightscreen.app/channels", method: String = "POST") async throws -> (Int, String?) {
            var request = client.requests.createChannelRequest(storagePolicy: .noMessageStored, requestID: Self.requestID(), authorization: authorization)
            request.body = Array(body.utf8)
            request.path = path
            request.method = method
            let response = try await manage.send(request)
            return (response.status, APNsClient.reasonText(response))
        }
        #expect(try await create("") == (400, "PayloadEmpty"))
        #expect(try await create("[1]") == (400, "BadRequestPayload"))
        #expect(try await create(#"{"message-storage-policy":0,"push-type":"LiveActivity","colour":"red"}"#) == (400, "BadRequestParams"))
        #expect(try await create(#"{"message-storage-policy":"1","push-type":"LiveActivity"}"#) == (400, "BadRequestParams"))
        #expect(try await create(#"{"message-storage-policy":2,"push-type":"LiveActivity"}"#) == (400, "BadRequestParams"))
        #expect(try await create(#"{"message-storage-policy":0}"#) == (400, "MissingPushType"))
        #expect(try await create(#"{"message-storage-policy":0,"push-type":"alert"}"#) == (400, "InvalidPushType"))
        #expect(try await create("{}", path: "/1/apps/com.sightscreen.app/nothing") == (404, "BadPath"))
        #expect(try await create("{}", method: "PUT") == (405, "MethodNotAllowed"))
        #expect(try await create("{}", path: "/1/apps/com.other.app/channels") == (403, "TopicMismatch"))
    }

    @Test func aThrottledChannelIsRetryableAndOnlyItsBroadcastsAreRefused() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let (mock, client, channels) = (rig.mock, rig.client, rig.channels)
        let busy = try await rig.create(.production, .noMessageStored)
        let calm = try await rig.create(.production, .noMessageStored)
        mock.setFaults(MockAPNsFaults(throttledChannels: [busy.rawValue]))
        let throttled = await client.sendBroadcast(Self.broadcast(busy))
        #expect(throttled.status == 429 && throttled.reason == .tooManyRequests && throttled.action == .retry)
        #expect(await client.sendBroadcast(Self.broadcast(calm)).action == .delivered)
        mock.setFaults(MockAPNsFaults())
        #expect(await client.sendBroadcast(Self.broadcast(busy)).action == .delivered)
        // Deleted behind the system's back: the channel is gone for good.
        #expect(mock.deleteChannel(busy.rawValue))
        let lost = await client.sendBroadcast(Self.broadcast(busy))
        #expect(lost.reason == .channelNotRegistered && lost.action == .channelInvalid)
    }

    @Test func anExpiredProviderTokenIsReplacedOnceForManagementAndBroadcasts() async throws {
        let start = Date()
        let clientClock = ManualWallClock(start)
        let mockClock = ManualWallClock(start)
        let rig = try Rig(clock: mockClock, clientClock: clientClock)
        defer { rig.stop() }
        let (mock, client, channels) = (rig.mock, rig.client, rig.channels)
        let channel = try await rig.create(.production, .noMessageStored)
        // APNs' clock says the token is older than an hour, ours 25 minutes (skew): one new token, one more attempt.
        mockClock.advance(by: 61 * 60)
        clientClock.advance(by: 25 * 60)
        let outcome = await client.sendBroadcast(Self.broadcast(channel))
        #expect(outcome.action == .delivered && outcome.attempts == 2, "\(outcome)")
        #expect(client.tokens.mintedCount == 2)
        // The new token (issued at our 25 minutes, APNs' 61) ages on APNs' clock past the hour again.
        mockClock.advance(by: 30 * 60)
        clientClock.advance(by: 25 * 60)
        #expect(try await channels.listChannels(environment: .production).get() == [channel])
        #expect(client.tokens.mintedCount == 3)
        // One refused broadcast (a push) and one refused channel listing (management), each counted in its own place.
        #expect(mock.counters.rejected["ExpiredProviderToken"] == 1)
        #expect(mock.counters.channelRequestsRejected["ExpiredProviderToken"] == 1)
    }
}

extension APNsClient {
    /// The `reason` of an error answer (tests' shorthand).
    static func reasonText(_ response: HTTP2Response) -> String? {
        struct Body: Decodable { var reason: String? }
        return (try? JSONDecoder().decode(Body.self, from: Data(response.body)))?.reason
    }
}

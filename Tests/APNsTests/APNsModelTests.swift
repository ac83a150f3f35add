import APNs
import Contracts
import Testing

@Suite struct APNsModelTests {
    @Test func everyReasonRoundTripsAndUnknownIsKept() {
        for reason in APNsReason.allKnown {
            #expect(APNsReason(rawValue: reason.rawValue) == reason)
        }
        #expect(APNsReason.allKnown.count == 41)
        #expect(APNsReason(rawValue: "Service Unavailable") == .serviceUnavailable, "the broadcast table's spelling")
        #expect(APNsReason.topicMismatch.status == 403 && APNsReason.channelNotRegistered.status == 400)
        #expect(APNsReason(rawValue: "SomethingNew") == .unknown("SomethingNew"))
        #expect(APNsReason.unregistered.status == 410)
        #expect(APNsReason.payloadTooLarge.status == 413)
        #expect(APNsReason.expiredProviderToken.status == 403)
    }

    @Test(arguments: [
        (200, nil, APNsAction.delivered),
        (410, APNsReason.unregistered, .tokenInvalid),
        (410, .expiredToken, .tokenInvalid),
        (400, .badDeviceToken, .tokenInvalid),
        (429, .tooManyRequests, .retry),
        (429, .tooManyProviderTokenUpdates, .retry),
        (500, .internalServerError, .retry),
        (503, .serviceUnavailable, .retry),
        (503, .shutdown, .retry),
        (403, .expiredProviderToken, .regenerateJWTAndRetry),
        (413, .payloadTooLarge, .permanentFailure),
        (400, .badTopic, .permanentFailure),
        (400, .badPriority, .permanentFailure),
        (403, .invalidProviderToken, .permanentFailure),
        (400, .unknown("PayloadInvalid"), .permanentFailure),
        (502, .unknown("BadGateway"), .retry),
        (400, .channelNotRegistered, .channelInvalid),
        (400, .badChannelId, .channelInvalid),
        (400, .featureNotEnabled, .permanentFailure),
        (400, .cannotCreateChannelConfig, .permanentFailure),
        (403, .topicMismatch, .permanentFailure),
    ] as [(Int, APNsReason?, APNsAction)])
    func reasonsMapToActions(status: Int, reason: APNsReason?, action: APNsAction) {
        #expect(APNsAction.classify(status: status, reason: reason) == action)
    }

    @Test func noAnswerMeansRetry() {
        #expect(APNsAction.classify(status: nil, reason: nil) == .retry)
    }

    @Test func apnsIDIsADeterministicVersion5UUID() {
        let id = APNsID.derive(jobID: "job-1", token: "abcd")
        #expect(id == APNsID.derive(jobID: "job-1", token: "abcd"))
        #expect(id != APNsID.derive(jobID: "job-1", token: "abce"))
        #expect(id != APNsID.derive(jobID: "job-2", token: "abcd"))
        #expect(APNsID.isValid(id))
        #expect(id == id.lowercased())
        let characters = Array(id)
        #expect(characters[14] == "5")
        #expect("89ab".contains(characters[19]))
        #expect(!APNsID.isValid("not-a-uuid"))
    }

    @Test func liveActivityRequestHeaders() {
        let factory = APNsRequestFactory(bundleID: "com.example.app")
        let request = factory.request(
            APNsPush(payload: [1], device: APNsDeviceToken("ab12", environment: .production), type: .liveActivity, priority: 5,
                     expiration: 1_800_000_000, apnsID: "id", collapseID: "c1"), authorization: "bearer x")
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/ab12")
        let headers = Dictionary(uniqueKeysWithValues: request.headers.map { ($0.name, $0.value) })
        #expect(headers["apns-push-type"] == "liveactivity")
        #expect(headers["apns-topic"] == "com.example.app.push-type.liveactivity")
        #expect(headers["apns-priority"] == "5")
        #expect(headers["apns-expiration"] == "1800000000")
        #expect(headers["apns-id"] == "id")
        #expect(headers["apns-collapse-id"] == "c1")
        #expect(headers["authorization"] == "bearer x")
        let alert = factory.request(
            APNsPush(payload: [1], device: APNsDeviceToken("ab", environment: .sandbox), type: .alert, priority: 10, expiration: nil, apnsID: "i"),
            authorization: "b")
        #expect(alert.headers.contains(where: HTTP2HeaderMatch.value("apns-push-type", "alert")))
        #expect(alert.headers.contains(where: HTTP2HeaderMatch.value("apns-topic", "com.example.app")))
        #expect(!alert.headers.contains { $0.name == "apns-expiration" || $0.name == "apns-collapse-id" })
    }

    @Test func broadcastAndChannelRequestsHaveApplesShapes() {
        let factory = APNsRequestFactory(bundleID: "com.example.app")
        let broadcast = factory.broadcastRequest(
            APNsBroadcast(payload: [7], channel: APNsChannelID("dGVzdA=="), environment: .production, priority: 5, expiration: 0,
                          requestID: "rid"), authorization: "bearer x")
        #expect(broadcast.method == "POST" && broadcast.path == "/4/broadcasts/apps/com.example.app" && broadcast.body == [7])
        let headers = Dictionary(broadcast.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(headers["apns-channel-id"] == "dGVzdA==" && headers["apns-push-type"] == "liveactivity")
        #expect(headers["apns-priority"] == "5" && headers["apns-expiration"] == "0" && headers["apns-request-id"] == "rid")
        #expect(headers["apns-topic"] == nil, "the path names the app")
        let create = factory.createChannelRequest(storagePolicy: .mostRecentMessageStored, requestID: "r1", authorization: "bearer x")
        #expect(create.method == "POST" && create.path == "/1/apps/com.example.app/channels")
        #expect(String(decoding: create.body, as: UTF8.self) == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        let read = factory.readChannelRequest(APNsChannelID("abcd"), requestID: "r2", authorization: "bearer x")
        let delete = factory.deleteChannelRequest(APNsChannelID("abcd"), requestID: "r3", authorization: "bearer x")
        #expect(read.method == "GET" && delete.method == "DELETE" && read.path == create.path && delete.path == create.path)
        #expect(read.headers.contains(where: HTTP2HeaderMatch.value("apns-channel-id", "abcd")) && read.body.isEmpty)
        let list = factory.listChannelsRequest(requestID: "r4", authorization: "bearer x")
        #expect(list.method == "GET" && list.path == "/1/apps/com.example.app/all-channels")
        #expect(APNsEndpoint.manageProduction.port == 2196 && APNsEndpoint.manageSandbox.port == 2195)
        #expect(APNsEndpoint.manageSandbox.host == "api-manage-broadcast.sandbox.push.apple.com")
        for good in ["dGVzdA==", "QUJDRA==", "abcd", "a+b/"] { #expect(APNsChannelID.isWellFormed(good), "\(good)") }
        for bad in ["", "abc", "a b=", "ab===", "é123", String(repeating: "A", count: 260)] { #expect(!APNsChannelID.isWellFormed(bad), "\(bad)") }
    }

    @Test func endpointsDefaultToApple() {
        #expect(APNsEndpoint.production.host == "api.push.apple.com")
        #expect(APNsEndpoint.sandbox.host == "api.sandbox.push.apple.com")
        #expect(APNsEndpoint.production.port == 443)
        #expect(APNsEndpoint.local(port: 2197).host == "127.0.0.1")
    }
}

import HTTP2

enum HTTP2HeaderMatch {
    static func value(_ name: String, _ value: String) -> (HTTP2Header) -> Bool {
        { $0.name == name && $0.value == value }
    }
}

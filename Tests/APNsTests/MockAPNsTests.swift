import APNs
import APNsMock
import Contracts
import Foundation
import HTTP2
import Runtime
import Testing
import SharedTestSupport

/// The real client against the in-process mock over TLS on 127.0.0.1.
@Suite(.timeLimit(.minutes(2))) struct MockAPNsTests {
    @Test func validPushesOfEveryKindAreAcceptedAndRecorded() async throws {
        let mock = try Fixtures.mock()
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let cases: [(String, APNsPushType, [UInt8], APNsServerEnvironment)] = [
            ("update", .liveActivity, Fixtures.update, .production), ("end", .liveActivity, Fixtures.end, .sandbox),
            ("start", .liveActivity, Fixtures.start, .production), ("alert", .alert, Fixtures.alert, .production),
        ]
        for (name, kind, payload, env) in cases {
            let target = Fixtures.target(Fixtures.token(length: kind == .alert ? 64 : 160), env: env)
            let apnsID = APNsID.derive(jobID: "j-\(name)", token: target.token)
            let outcome = await client.send(
                payload: payload, target: target, kind: kind, priority: kind == .alert ? 10 : 5,
                expiration: Fixtures.now + 600, apnsID: apnsID, collapseID: "score")
            #expect(outcome.action == .delivered, "\(kind): \(outcome)")
            #expect(outcome.status == 200)
            let recorded = mock.deliveries(token: target.token)
            #expect(recorded.count == 1)
            #expect(recorded.first?.apnsID == apnsID)
            #expect(recorded.first?.payload == String(decoding: payload, as: UTF8.self))
            #expect(recorded.first?.pushType == (kind == .alert ? "alert" : "liveactivity"))
        }
        #expect(mock.counters.accepted == 4)
        let again = Fixtures.target(Fixtures.token(length: 160))
        for _ in 0..<2 {
            _ = await client.send(payload: Fixtures.update, target: again, kind: .liveActivity, priority: 5, expiration: Fixtures.now + 600,
                                  apnsID: APNsID.derive(jobID: "j-again", token: again.token), collapseID: nil)
        }
        #expect(mock.counters.distinctTokens == 5)
        #expect(mock.counters.repeatedPushes == 1, "the second push to the same token is a repeat")
    }

    @Test func unregisteredTokenIsTokenInvalidWithMillisecondTimestamp() async throws {
        let mock = try Fixtures.mock()
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let target = Fixtures.target()
        mock.markUnregistered(target.token, timestamp: 1_800_000_000_123)
        let outcome = await client.send(
            payload: Fixtures.update, target: target, kind: .liveActivity, priority: 5, expiration: nil, apnsID: APNsID.derive(jobID: "j", token: target.token))
        #expect(outcome.action == .tokenInvalid)
        #expect(outcome.status == 410)
        #expect(outcome.reason == .unregistered)
        #expect(outcome.apnsTimestamp == 1_800_000_000_123)
        #expect(outcome.attempts == 1)
    }

    @Test func rejectionsMapToTheirActions() async throws {
        let mock = try Fixtures.mock()
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let wrongBundle = try Fixtures.client(port: mock.port, bundleID: "com.other.app")
        defer { wrongBundle.shutdown() }
        let wrongKey = try Fixtures.client(port: mock.port, key: Fixtures.otherKey)
        defer { wrongKey.shutdown() }
        func send(_ client: APNsClient, token: String = Fixtures.token(), payload: [UInt8] = Fixtures.update, priority: Int = 5) async -> APNsOutcome {
            await client.send(
                payload: payload, target: Fixtures.target(token), kind: .liveActivity, priority: priority,
                expiration: Fixtures.now + 60, apnsID: APNsID.derive(jobID: "r", token: token))
        }
        let badToken = await send(client, token: "abc")
        #expect(badToken.action == .tokenInvalid && badToken.reason == .badDeviceToken && badToken.status == 400)
        let tooLarge = await send(client, payload: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{"x":"\#(String(repeating: "a", count: 5000))"}}}"#.utf8))
        #expect(tooLarge.action == .permanentFailure && tooLarge.reason == .payloadTooLarge && tooLarge.status == 413)
        let badTopic = await send(wrongBundle)
        #expect(badTopic.action == .permanentFailure && badTopic.reason == .badTopic)
        let badPriority = await send(client, priority: 7)
        #expect(badPriority.action == .permanentFailure && badPriority.reason == .badPriority)
        let badSignature = await send(wrongKey)
        #expect(badSignature.action == .permanentFailure && badSignature.reason == .invalidProviderToken && badSignature.status == 403)
        let noContentState = await send(client, payload: Array(#"{"aps":{"timestamp":1,"event":"update"}}"#.utf8))
        #expect(noContentState.action == .permanentFailure && noContentState.reason == .unknown("PayloadInvalid"))
        let stringTimestamp = await send(client, payload: Array(#"{"aps":{"timestamp":"1","event":"update","content-state":{}}}"#.utf8))
        #expect(stringTimestamp.reason == .unknown("PayloadInvalid"))
        let startWithoutAttributes = await send(client, payload: Array(#"{"aps":{"timestamp":1,"event":"start","content-state":{}}}"#.utf8))
        #expect(startWithoutAttributes.reason == .unknown("PayloadInvalid"))
        let empty = await send(client, payload: [])
        #expect(empty.reason == .payloadEmpty)
        let rejected = mock.counters.rejected
        #expect(rejected["BadDeviceToken"] == 1 && rejected["PayloadTooLarge"] == 1 && rejected["BadTopic"] == 1)
        #expect(mock.counters.accepted == 0)
    }

    /// The mock reuses the last body's check for the same bytes (a job's pushes): the verdict still follows the bytes
    /// and the push type, push by push.
    @Test func aRepeatedBodyGetsTheSameVerdictForItsPushType() async throws {
        let mock = try Fixtures.mock()
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        func send(_ payload: [UInt8], kind: APNsPushType) async -> APNsOutcome {
            let target = Fixtures.target()
            return await client.send(payload: payload, target: target, kind: kind, priority: 10, expiration: nil,
                                     apnsID: APNsID.derive(jobID: "p", token: target.token))
        }
        let alertOnly = Array(#"{"aps":{"alert":{"title":"Wicket"}}}"#.utf8)
        #expect(await send(alertOnly, kind: .liveActivity).reason == .unknown("PayloadInvalid"))
        #expect(await send(alertOnly, kind: .liveActivity).reason == .unknown("PayloadInvalid"), "the same bytes again")
        #expect(await send(alertOnly, kind: .alert).action == .delivered, "the same bytes as an alert")
        #expect(await send(Fixtures.update, kind: .liveActivity).action == .delivered)
        #expect(await send(Fixtures.update, kind: .liveActivity).action == .delivered)
        let recorded = mock.deliveries()
        #expect(recorded.count == 3 && recorded[1].payload == String(decoding: Fixtures.update, as: UTF8.self))
        #expect(recorded[1].apsTimestamp != nil && recorded[1].apsTimestamp == recorded[2].apsTimestamp && recorded[0].apsTimestamp == nil)
        #expect(mock.counters.rejected == ["PayloadInvalid": 2])
    }

    @Test(arguments: [
        (MockAPNsFaults(tooManyRequestsRate: 1), APNsReason.tooManyRequests, 429),
        (MockAPNsFaults(internalErrorRate: 1), .internalServerError, 500),
        (MockAPNsFaults(serviceUnavailableRate: 1), .serviceUnavailable, 503),
    ])
    func retryableFaultsAreReportedAsRetryAfterOneAttempt(faults: MockAPNsFaults, reason: APNsReason, status: Int) async throws {
        // The client makes one attempt; retrying is apns-sender's (RetryScheduler), in one place.
        let mock = try Fixtures.mock(faults: faults)
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let target = Fixtures.target()
        let outcome = await client.send(
            payload: Fixtures.update, target: target, kind: .liveActivity, priority: 5, expiration: nil, apnsID: APNsID.derive(jobID: "f", token: target.token))
        #expect(outcome.action == .retry)
        #expect(outcome.reason == reason)
        #expect(outcome.status == status)
        #expect(outcome.attempts == 1)
        #expect(mock.counters.rejected[reason.rawValue] == 1)
    }

    /// The mock's ordering counters: pushes per token and per `aps.timestamp`, repeats, and a token shown an older state
    /// after a newer one — from the payload check's own reading of the timestamp, one look-up per push.
    @Test func repeatsAndBackwardsPushesAreCountedPerToken() async throws {
        let mock = try Fixtures.mock()
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let first = Fixtures.target(), second = Fixtures.target()
        func send(_ target: APNsDeviceToken, timestamp: Int64, job: String) async -> APNsOutcome {
            let body = Array(#"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"score":"1/0"}}}"#.utf8)
            return await client.send(payload: body, target: target, kind: .liveActivity, priority: 5, expiration: nil,
                                     apnsID: APNsID.derive(jobID: job, token: target.token))
        }
        for (target, timestamp, job) in [(first, 100, "a"), (first, 200, "b"), (first, 150, "c"), (second, 150, "d")] {
            #expect(await send(target, timestamp: Int64(timestamp), job: job).action == .delivered)
        }
        let counters = mock.counters
        #expect(counters.accepted == 4 && counters.distinctTokens == 2 && counters.repeatedPushes == 2)
        #expect(counters.backwardsPushes == 1, "150 after 200 on the first token; the second token's 150 is its first")
        #expect(counters.byTimestamp["150"]?.accepted == 2 && counters.byTimestamp["100"]?.accepted == 1)
        #expect(mock.deliveries(token: first.token).map(\.apsTimestamp) == [100, 200, 150])
    }

    /// `unregisteredRate`: APNs stops knowing the token — 410 with a timestamp, and every later push to it too.
    @Test func anUnregisteredFaultKillsTheTokenForGood() async throws {
        let mock = try Fixtures.mock(faults: MockAPNsFaults(unregisteredRate: 1))
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let target = Fixtures.target()
        func send(_ job: String) async -> APNsOutcome {
            await client.send(payload: Fixtures.update, target: target, kind: .liveActivity, priority: 5, expiration: nil,
                              apnsID: APNsID.derive(jobID: job, token: target.token))
        }
        let first = await send("u1")
        #expect(first.action == .tokenInvalid && first.reason == .unregistered && first.status == 410)
        mock.setFaults(MockAPNsFaults())
        let later = await send("u2")
        #expect(later.action == .tokenInvalid && later.reason == .unregistered, "the token stays unknown after the fault ends")
        #expect(mock.counters.rejected["Unregistered"] == 2 && mock.counters.accepted == 0)
    }

    @Test func expiredProviderTokenIsRegeneratedAndTheSendRetried() async throws {
        let start = Date()
        let clientClock = ManualWallClock(start)
        let mockClock = ManualWallClock(start)
        let mock = try Fixtures.mock(clock: mockClock)
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port, clock: clientClock)
        defer { client.shutdown() }
        let target = Fixtures.target()
        let first = await client.send(payload: Fixtures.update, target: target, kind: .liveActivity, priority: 5, expiration: nil, apnsID: APNsID.derive(jobID: "a", token: target.token))
        #expect(first.action == .delivered)
        // APNs' clock says the token is older than an hour; ours says 25 minutes (skew): regenerate.
        mockClock.advance(by: 61 * 60)
        clientClock.advance(by: 25 * 60)
        let second = await client.send(payload: Fixtures.update, target: target, kind: .liveActivity, priority: 5, expiration: nil, apnsID: APNsID.derive(jobID: "b", token: target.token))
        #expect(second.action == .delivered)
        #expect(second.attempts == 2)
        #expect(client.tokens.mintedCount == 2)
        #expect(mock.counters.rejected["ExpiredProviderToken"] == 1)
        // Rejected again within 20 minutes of the new token: no minting, reported to the caller.
        mockClock.advance(by: 60 * 60)
        let third = await client.send(payload: Fixtures.update, target: target, kind: .liveActivity, priority: 5, expiration: nil, apnsID: APNsID.derive(jobID: "c", token: target.token))
        #expect(third.action == .regenerateJWTAndRetry)
        #expect(third.reason == .expiredProviderToken)
        #expect(client.tokens.mintedCount == 2)
    }

    @Test func goAwayInTheMiddleOfAJobLosesNothing() async throws {
        let mock = try Fixtures.mock(maxConcurrentStreams: 100, faults: MockAPNsFaults(goAwayAfterStreams: 40, latencyMilliseconds: 1))
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let job = Fixtures.job(targets: (0..<1000).map { _ in Fixtures.target() })
        let outcomes = await client.send(job)
        #expect(outcomes.count == 1000)
        #expect(outcomes.allSatisfy { $0.action == .delivered })
        #expect(zip(outcomes, job).allSatisfy { $0.device == $1.device })
        let counters = mock.counters
        #expect(counters.goAwaysSent >= 20)
        #expect(counters.accepted == 1000)
        #expect(counters.distinctTokens == 1000 && counters.repeatedPushes == 0, "every token exactly once, GOAWAYs notwithstanding")
        #expect(counters.firstAcceptedAt > 0 && counters.lastAcceptedAt >= counters.firstAcceptedAt)
        let delivered = Set(mock.deliveries().map(\.token))
        #expect(delivered == Set(job.map(\.device.token)))
        #expect(client.statistics(for: .production).requestsRequeued > 0)
    }

    @Test func aJobOfBothEnvironmentsAnswersEveryPushInItsOwnPlace() async throws {
        let mock = try Fixtures.mock()
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let targets = (0..<60).map { Fixtures.target(env: $0 % 3 == 0 ? .sandbox : .production) }
        let gone = [targets[3], targets[4]]  // one sandbox, one production
        for target in gone { mock.markUnregistered(target.token, timestamp: 1_800_000_000_000) }
        let job = Fixtures.job(targets: targets)
        let outcomes = await client.send(job)
        #expect(outcomes.map(\.device) == targets, "outcomes in push order across the two pools")
        for (outcome, push) in zip(outcomes, job) {
            let expected: APNsAction = gone.contains(push.device) ? .tokenInvalid : .delivered
            #expect(outcome.action == expected, "\(outcome)")
            #expect(outcome.apnsID == push.apnsID && outcome.attempts == 1)
        }
        #expect(client.statistics(for: .sandbox).connectionsOpened >= 1, "the sandbox pushes went over the sandbox pool")
        #expect(client.statistics(for: .production).connectionsOpened >= 1)
        #expect(mock.counters.accepted == 58)
    }

    /// Answers reported while a batch runs (what apns-sender's progress marks are made from): in groups of `every`
    /// as they come — the first group long before the batch ends — each push once, across both environments, with the
    /// outcome the batch returns.
    @Test func answersAreReportedInGroupsWhileTheBatchRuns() async throws {
        let mock = try Fixtures.mock(maxConcurrentStreams: 5, faults: MockAPNsFaults(latencyMilliseconds: 20))
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port, connections: 1)
        defer { client.shutdown() }
        let targets = (0..<60).map { Fixtures.target(env: $0 % 4 == 0 ? .sandbox : .production) }
        mock.markUnregistered(targets[5].token, timestamp: 1_800_000_000_000)
        let job = Fixtures.job(targets: targets)
        let reports = LockedValue<[(at: ContinuousClock.Instant, answers: [(Int, APNsOutcome)])]>([])
        let outcomes = await client.send(job, answered: APNsAnswerReport(every: 7) { answers in
            reports.withLock { $0.append((.now, answers)) }
        })
        let ended = ContinuousClock.now
        let all = reports.withLock { $0 }
        let reported = all.flatMap(\.answers)
        #expect(reported.map(\.0).sorted() == Array(0..<60), "every push reported once")
        for (index, outcome) in reported { #expect(outcome == outcomes[index]) }
        #expect(reported.first { $0.0 == 5 }?.1.action == .tokenInvalid)
        #expect(all.allSatisfy { $0.answers.count <= 7 })
        // 15 sandbox and 45 production pushes, 5 streams, 20 ms each: the first group comes ≥ 100 ms before the end.
        #expect(try #require(all.first).at < ended - .milliseconds(60), "reported while the batch ran")
    }

    @Test func maxConcurrentStreamsIsRespected() async throws {
        let mock = try Fixtures.mock(maxConcurrentStreams: 3, faults: MockAPNsFaults(latencyMilliseconds: 2))
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port, connections: 1)
        defer { client.shutdown() }
        let outcomes = await client.send(Fixtures.job(targets: (0..<100).map { _ in Fixtures.target() }))
        #expect(outcomes.allSatisfy { $0.action == .delivered })
        #expect(mock.counters.peakConcurrentStreams == 3)
        #expect(client.statistics(for: .production).peakStreamsPerConnection == 3)
    }

    @Test func replayedJobReusesTheSameApnsIDs() async throws {
        let mock = try Fixtures.mock()
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let job = Fixtures.job(targets: (0..<5).map { _ in Fixtures.target() })
        let first = await client.send(job)
        let second = await client.send(job)
        #expect(first.map(\.apnsID) == second.map(\.apnsID))
        for push in job {
            let ids = mock.deliveries(token: push.device.token).map(\.apnsID)
            #expect(ids.count == 2 && ids[0] == ids[1])
        }
    }

    /// Refused pushes are recorded with what was refused and why, numbered from the deliveries' sequence, so a checker
    /// sees in answer order that a token was accepted, then refused (410, then an injected 503), then never accepted.
    @Test func refusalsAreRecordedInAnswerOrder() async throws {
        let mock = try Fixtures.mock()
        defer { mock.stop() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let http = try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: "127.0.0.1", port: mock.port, caFile: Fixtures.certificate.certificateFile, connections: 1))
        defer { http.shutdown() }
        let (target, other) = (Fixtures.target(), Fixtures.target())
        func send(_ job: String, to target: APNsDeviceToken, priority: Int = 10) async -> APNsOutcome {
            await client.send(payload: Fixtures.update, target: target, kind: .liveActivity, priority: priority, expiration: nil,
                              apnsID: APNsID.derive(jobID: job, token: target.token))
        }
        #expect(await send("j1", to: target).action == .delivered)
        mock.markUnregistered(target.token)
        #expect(await send("j2", to: target).action == .tokenInvalid)
        mock.setFaults(MockAPNsFaults(serviceUnavailableRate: 1))
        #expect(await send("j3", to: other, priority: 5).action == .retry)
        mock.setFaults(MockAPNsFaults())

        let accepted = try #require(mock.deliveries(token: target.token).first?.sequence)
        let refusals = mock.refusals()
        #expect(refusals.map(\.token) == [target.token, other.token])
        #expect(refusals.map(\.status) == [410, 503] && refusals.map(\.reason) == ["Unregistered", "ServiceUnavailable"])
        #expect(refusals.map(\.priority) == [10, 5] && refusals.allSatisfy { $0.channelId == nil && $0.receivedAt > 0 })
        #expect(refusals[0].apnsID == APNsID.derive(jobID: "j2", token: target.token))
        #expect(refusals[0].sequence > accepted && refusals[1].sequence > refusals[0].sequence, "one order with the deliveries")
        #expect(mock.refusals(token: other.token).map(\.sequence) == [refusals[1].sequence])
        #expect(mock.refusals(since: refusals[0].sequence).count == 1 && mock.refusals(limit: 1).count == 1)

        let body = try await http.send(HTTP2Request(method: "GET", path: "/mock/refusals?token=\(target.token)")).body
        #expect(try JSONDecoder().decode([MockAPNsRefusal].self, from: Data(body)) == [refusals[0]])
        #expect(try await http.send(HTTP2Request(method: "GET", path: "/mock/refusals?since=x")).status == 400)
        #expect(mock.counters.rejected == ["Unregistered": 1, "ServiceUnavailable": 1], "still counted")
    }

    @Test func controlAPIAndDeliveryLogWork() async throws {
        let logFile = NSTemporaryDirectory() + "mock-apns-\(UUID().uuidString).jsonl"
        let mock = try Fixtures.mock(logFile: logFile)
        let http = try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: "127.0.0.1", port: mock.port, caFile: Fixtures.certificate.certificateFile, connections: 1))
        defer { http.shutdown() }
        let client = try Fixtures.client(port: mock.port)
        defer { client.shutdown() }
        let gone = Fixtures.target()
        let marked = try await http.send(HTTP2Request(method: "POST", path: "/mock/unregistered", body: Array(#"{"token":"\#(gone.token)"}"#.utf8)))
        #expect(marked.status == 204)
        let ok = Fixtures.target()
        #expect(await client.send(payload: Fixtures.update, target: ok, kind: .liveActivity, priority: 5, expiration: nil, apnsID: APNsID.derive(jobID: "x", token: ok.token)).action == .delivered)
        #expect(await client.send(payload: Fixtures.update, target: gone, kind: .liveActivity, priority: 5, expiration: nil, apnsID: APNsID.derive(jobID: "x", token: gone.token)).action == .tokenInvalid)
        let counters = try JSONDecoder().decode(MockAPNsCounters.self, from: Data(try await http.send(HTTP2Request(method: "GET", path: "/mock/counters")).body))
        #expect(counters.accepted == 1 && counters.rejected["Unregistered"] == 1)
        let deliveries = try JSONDecoder().decode([MockAPNsDelivery].self, from: Data(try await http.send(HTTP2Request(method: "GET", path: "/mock/deliveries?token=\(ok.token)")).body))
        #expect(deliveries.count == 1 && deliveries[0].token == ok.token)
        let faults = try await http.send(HTTP2Request(method: "POST", path: "/mock/faults", body: Array(#"{"tooManyRequestsRate":1}"#.utf8)))
        #expect(faults.status == 200)
        #expect(mock.faults.tooManyRequestsRate == 1)
        #expect(try await http.send(HTTP2Request(method: "POST", path: "/mock/reset")).status == 204)
        #expect(mock.counters.accepted == 0 && mock.faults == MockAPNsFaults())
        mock.stop()
        let lines = try String(contentsOfFile: logFile, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(ok.token) == true)
        try? FileManager.default.removeItem(atPath: logFile)
    }
}

import APNs
import Crypto
import Foundation
import Runtime

/// One accepted broadcast as mock-apns recorded it.
public struct MockAPNsBroadcast: Codable, Sendable, Equatable {
    /// Position among recorded broadcasts, from 1 (survives `reset`).
    public var sequence: Int
    public var channelId: String
    public var environment: String
    public var requestId: String
    public var uniqueId: String
    public var priority: Int
    public var expiration: Int64
    public var payload: String
    /// Mock clock, Unix milliseconds.
    public var receivedAt: Int64
    /// Subscribers it was copied to (listed and counted ones).
    public var subscribers: Int
}

/// A channel as `GET /mock/channels` lists it.
public struct MockAPNsChannel: Codable, Sendable, Equatable {
    public var channelId: String
    public var environment: String
    public var storagePolicy: Int
    /// Listed subscribers (each gets a recorded copy of every broadcast).
    public var subscribers: [String]
    /// Subscribers only counted (benchmarks: a copy is counted, not recorded).
    public var countedSubscribers: Int
}

/// mock-apns's broadcast channels: the channels per environment (created on a management listener, with
/// Apple's per-environment limit), their subscribers, the recorded broadcasts and their counters. One lock.
final class MockChannelStore: Sendable {
    struct Channel {
        var environment: APNsServerEnvironment
        var policy: APNsChannelStoragePolicy
        var subscribers: [String] = []
        var counted = 0
    }

    struct Counts: Sendable {
        var broadcastsAccepted = 0
        var broadcastCopies = 0
        var repeatedBroadcasts = 0
        var firstBroadcastAcceptedAt: Int64 = 0
        var lastBroadcastAcceptedAt: Int64 = 0
        var channels: [String: Int] = [:]
    }

    private struct Storage {
        var channels: [String: Channel] = [:]
        var deleted: Set<String> = []
        var broadcasts: [MockAPNsBroadcast] = []
        var acceptedRequestIDs: Set<String> = []
        var lastSequence = 0
        var counts = Counts()
    }

    let limit: Int
    private let storage = LockedValue(Storage())

    init(limit: Int) { self.limit = limit }

    /// A new channel, or CannotCreateChannelConfig at the environment's limit. Ids are base64 of 16–24 random
    /// bytes (their length varies on purpose: clients must not assume one).
    enum Creation {
        case created(String)
        case refused(APNsReason)
    }

    func create(environment: APNsServerEnvironment, policy: APNsChannelStoragePolicy) -> Creation {
        storage.withLock { storage in
            let live = storage.channels.values.filter { $0.environment == environment }.count
            guard live < limit else { return .refused(.cannotCreateChannelConfig) }
            var id: String
            repeat {
                let bytes = (0..<Int.random(in: 16...24)).map { _ in UInt8.random(in: 0...255) }
                id = Data(bytes).base64EncodedString()
            } while storage.channels[id] != nil || storage.deleted.contains(id)
            storage.channels[id] = Channel(environment: environment, policy: policy)
            storage.counts.channels[environment.rawValue, default: 0] += 1
            return .created(id)
        }
    }

    /// The channel's policy when it exists in `environment` (nil: any environment).
    func policy(of id: String, environment: APNsServerEnvironment?) -> APNsChannelStoragePolicy? {
        storage.withLock { storage in
            guard let channel = storage.channels[id], environment == nil || channel.environment == environment else { return nil }
            return channel.policy
        }
    }

    /// The channel's policy and environment, when it exists.
    func lookup(_ id: String) -> (APNsChannelStoragePolicy, APNsServerEnvironment)? {
        storage.withLock { storage in storage.channels[id].map { ($0.policy, $0.environment) } }
    }

    /// Deletes the channel (irreversibly); false when it does not exist in `environment` (nil: any).
    @discardableResult
    func delete(_ id: String, environment: APNsServerEnvironment?) -> Bool {
        storage.withLock { storage in
            guard let channel = storage.channels[id], environment == nil || channel.environment == environment else { return false }
            storage.channels[id] = nil
            storage.deleted.insert(id)
            storage.counts.channels[channel.environment.rawValue, default: 1] -= 1
            return true
        }
    }

    /// The ids of every channel of `environment`.
    func list(environment: APNsServerEnvironment) -> [String] {
        storage.withLock { storage in storage.channels.filter { $0.value.environment == environment }.map(\.key).sorted() }
    }

    func channels() -> [MockAPNsChannel] {
        storage.withLock { storage in
            storage.channels.map { id, channel in
                MockAPNsChannel(channelId: id, environment: channel.environment.rawValue, storagePolicy: channel.policy.rawValue,
                                subscribers: channel.subscribers, countedSubscribers: channel.counted)
            }.sorted { $0.channelId < $1.channelId }
        }
    }

    /// Adds a listed subscriber (once); false for an unknown channel.
    func subscribe(_ subscriber: String, to id: String) -> Bool {
        storage.withLock { storage in
            guard storage.channels[id] != nil else { return false }
            if !storage.channels[id]!.subscribers.contains(subscriber) { storage.channels[id]!.subscribers.append(subscriber) }
            return true
        }
    }

    func unsubscribe(_ subscriber: String, from id: String) -> Bool {
        storage.withLock { storage in
            guard storage.channels[id] != nil else { return false }
            storage.channels[id]!.subscribers.removeAll { $0 == subscriber }
            return true
        }
    }

    /// Sets the number of counted-only subscribers; false for an unknown channel.
    func setCountedSubscribers(_ count: Int, of id: String) -> Bool {
        storage.withLock { storage in
            guard storage.channels[id] != nil else { return false }
            storage.channels[id]!.counted = max(0, count)
            return true
        }
    }

    /// Records an accepted broadcast and returns the listed subscribers to copy it to.
    func accept(channelId: String, environment: APNsServerEnvironment, requestId: String, priority: Int, expiration: Int64,
                payload: String, receivedAt: Int64) -> (record: MockAPNsBroadcast, subscribers: [String]) {
        storage.withLock { storage in
            let channel = storage.channels[channelId]
            let listed = channel?.subscribers ?? []
            let total = listed.count + (channel?.counted ?? 0)
            storage.lastSequence += 1
            let record = MockAPNsBroadcast(
                sequence: storage.lastSequence, channelId: channelId, environment: environment.rawValue, requestId: requestId,
                uniqueId: UUID().uuidString.lowercased(), priority: priority, expiration: expiration, payload: payload,
                receivedAt: receivedAt, subscribers: total)
            storage.broadcasts.append(record)
            if !storage.acceptedRequestIDs.insert(requestId).inserted { storage.counts.repeatedBroadcasts += 1 }
            storage.counts.broadcastsAccepted += 1
            storage.counts.broadcastCopies += total
            if storage.counts.firstBroadcastAcceptedAt == 0 { storage.counts.firstBroadcastAcceptedAt = receivedAt }
            storage.counts.lastBroadcastAcceptedAt = max(storage.counts.lastBroadcastAcceptedAt, receivedAt)
            return (record, listed)
        }
    }

    /// Recorded broadcasts (of `channel`, or all) with a sequence above `since`, oldest first, at most `limit`.
    func broadcasts(channel: String?, since: Int, limit: Int) -> [MockAPNsBroadcast] {
        storage.withLock { storage in
            Array(storage.broadcasts.lazy.filter { $0.sequence > since && (channel == nil || $0.channelId == channel) }.prefix(limit))
        }
    }

    func counts() -> Counts { storage.withLock { $0.counts } }

    /// Forgets the recorded broadcasts and their counters (sequences keep growing). The channels and their
    /// subscribers stay: they are APNs's state that the system under test owns (`delete` is how a test takes one
    /// away behind its back).
    func reset() {
        storage.withLock { storage in
            let kept = storage.counts.channels
            storage.broadcasts = []
            storage.acceptedRequestIDs = []
            storage.counts = Counts()
            storage.counts.channels = kept
        }
    }
}

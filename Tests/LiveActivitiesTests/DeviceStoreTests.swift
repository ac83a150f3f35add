import Foundation
import LiveActivities
import Postgres
import Runtime
import ServerTestSupport
import Testing

/// `DeviceStore` against PostgreSQL: the upsert's keep-what-is-left-out rules, the channel capability, removal, the
/// clearing of tokens APNs refused (only the exact token) and the count.
@Suite struct DeviceStoreTests {
    static func database() async throws -> PostgresClient {
        try await TestServers.database(schemaPrefix: "device_store", logger: LiveActivityStoreTests.logger)
    }

    static func tokens(_ database: PostgresClient, _ user: String, _ device: String) async throws -> (push: String?, start: String?)? {
        try await database.query("SELECT push_token, push_to_start_token FROM devices WHERE user_id = $1 AND device_id = $2", [user, device])
            .first.map { (try $0.decode("push_token", as: String?.self), try $0.decode("push_to_start_token", as: String?.self)) }
    }

    @Test("upsert: a token or OS version left out keeps the stored one; channel-capable needs the build's word and iOS 18")
    func upsertKeepsWhatIsLeftOut() async throws {
        let database = try await Self.database()
        let store = DeviceStore(database: database)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try await store.upsert(userId: "u1", deviceId: "d1", pushToken: "aa", pushToStartToken: nil, environment: "sandbox",
                                           appVersion: "1.0", osVersion: "18.1", supportsBroadcastChannels: false, now: now)
        #expect(first == DeviceRecord(hasPushToken: true, hasPushToStartToken: false, apnsEnvironment: "sandbox", appVersion: "1.0",
                                      updatedAt: now, osVersion: "18.1", channelCapable: false))
        let second = try await store.upsert(userId: "u1", deviceId: "d1", pushToken: nil, pushToStartToken: "bb", environment: "sandbox",
                                            appVersion: "1.1", supportsBroadcastChannels: true, now: now.addingTimeInterval(1))
        #expect(second.hasPushToken && second.hasPushToStartToken && second.osVersion == "18.1" && second.channelCapable,
                "the stored iOS 18.1 and the build's word make it channel-capable")
        let older = try await store.upsert(userId: "u1", deviceId: "d1", pushToken: nil, pushToStartToken: nil, environment: "production",
                                           appVersion: "1.1", osVersion: "17.5", supportsBroadcastChannels: true, now: now)
        #expect(!older.channelCapable && older.apnsEnvironment == "production")
        #expect(try await Self.tokens(database, "u1", "d1")?.push == "aa")
        #expect(try await store.count() == 1)
        #expect(try await store.delete(userId: "u1", deviceId: "d1"))
        #expect(try await !store.delete(userId: "u1", deviceId: "d1"), "a second delete finds nothing")
        #expect(try await store.count() == 0)
        await database.shutdown()
    }

    @Test("refused tokens: cleared only while the device still holds that exact token")
    func clearsOnlyTheRefusedToken() async throws {
        let database = try await Self.database()
        let store = DeviceStore(database: database)
        _ = try await store.upsert(userId: "u1", deviceId: "d1", pushToken: "aa", pushToStartToken: "bb", environment: "production",
                                   appVersion: "1.0", now: Date())
        #expect(try await store.clearPushToken("rotated", userId: "u1", deviceId: "d1") == 0)
        #expect(try await store.clearPushToken("aa", userId: "u1", deviceId: "d1") == 1)
        #expect(try await store.clearPushToken("aa", userId: "u1", deviceId: "d1") == 0, "a replay changes nothing")
        let cleared = try await database.withTransaction { connection in
            (try await DeviceStore.clearPushToStartToken("old", userId: "u1", deviceId: "d1", on: connection),
             try await DeviceStore.clearPushToStartToken("bb", userId: "u1", deviceId: "d1", on: connection))
        }
        #expect(cleared == (0, 1))
        let tokens = try #require(try await Self.tokens(database, "u1", "d1"))
        #expect(tokens.push == nil && tokens.start == nil)
        await database.shutdown()
    }
}

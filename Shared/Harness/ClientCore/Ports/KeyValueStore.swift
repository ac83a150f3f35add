import Synchronization
import Runtime

/// A UserDefaults-like persistent store of string lists, surviving app relaunches.
public protocol KeyValueStore: Sendable {
    /// The list stored under `key`, or nil when absent.
    func strings(forKey key: String) -> [String]?
    /// Stores `value` under `key`; nil removes the key.
    func setStrings(_ value: [String]?, forKey key: String)
}

/// A process-lifetime `KeyValueStore`. Sharing one instance between two app "launches" models
/// the persistence of UserDefaults across a relaunch.
public final class InMemoryKeyValueStore: KeyValueStore {
    private let values: LockedValue<[String: [String]]>

    public init(_ initial: [String: [String]] = [:]) { values = LockedValue(initial) }

    public func strings(forKey key: String) -> [String]? { values.withLock { $0[key] } }

    public func setStrings(_ value: [String]?, forKey key: String) { values.withLock { $0[key] = value } }
}

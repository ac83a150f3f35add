import Runtime

extension JSONValue {
    /// A stable 64-bit fingerprint of the value (FNV-1a over a walk of the tree; an object's members are hashed
    /// one by one and summed, so their order does not matter and nothing is sorted): equal values give equal
    /// fingerprints in every process, whatever order their keys came in, without encoding the value.
    public var fingerprint: UInt64 {
        var hasher = FNV1a()
        combine(into: &hasher)
        return hasher.value
    }

    /// MurmurHash3's 64-bit finalizer: member hashes are summed, and without it two small changes in two
    /// members could cancel out in the sum.
    static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }

    private func combine(into hasher: inout FNV1a) {
        switch self {
        case .null: hasher.combine(UInt8(0))
        case .bool(let value): hasher.combine(UInt8(value ? 2 : 1))
        case .int(let value):
            hasher.combine(UInt8(3))
            hasher.combine(UInt64(bitPattern: Int64(value)))
        case .double(let value):
            hasher.combine(UInt8(4))
            hasher.combine(value.bitPattern)
        case .string(let value):
            hasher.combine(UInt8(5))
            hasher.combine(UInt64(value.utf8.count))
            hasher.combine(value.utf8)
        case .array(let items):
            hasher.combine(UInt8(6))
            hasher.combine(UInt64(items.count))
            for item in items { item.combine(into: &hasher) }
        case .object(let members):
            hasher.combine(UInt8(7))
            hasher.combine(UInt64(members.count))
            var sum: UInt64 = 0
            for (key, value) in members {
                var member = FNV1a()
                member.combine(UInt64(key.utf8.count))
                member.combine(key.utf8)
                value.combine(into: &member)
                sum &+= Self.mix(member.value)
            }
            hasher.combine(sum)
        }
    }
}

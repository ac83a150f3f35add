extension UInt8 {
    /// True for an ASCII hex digit (0-9, a-f, A-F): the one check of hex text (APNs tokens, apns-ids).
    public var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}

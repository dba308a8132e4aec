public import FlowCatalog
public import FlowDescriptor

/// Converts single values to declared types, as the transform tree's leaves do; for values that arrive from
/// elsewhere (a program's output, an input).
public enum ValueConversion {
    private static let builtinRecords = RecordTable(catalog: .recordTypes)

    /// `node` read as `type`.
    /// - Throws: ``TransformError`` saying what was expected and found.
    public static func convert(
        _ node: Node, to type: ValueType, catalog: Catalog? = nil
    ) throws(TransformError) -> InfoValue {
        let records = catalog.map(RecordTable.init(catalog:)) ?? builtinRecords
        return try Conversion(records: records).convert(node, to: type, at: ConfigPath())
    }
}

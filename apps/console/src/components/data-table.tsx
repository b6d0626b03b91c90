import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';

/** A table of rows (TanStack Table); on a phone each row becomes a card, its cells labelled by their header. */
export function DataTable<T>({ columns, data, label, rowId }: { columns: ColumnDef<T, any>[]; data: T[]; label: string; rowId: (row: T) => string }) {
  const table = useReactTable({ columns, data, getCoreRowModel: getCoreRowModel(), getRowId: rowId });
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label={label}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col">
                  {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id} data-label={typeof cell.column.columnDef.header === 'string' ? cell.column.columnDef.header : ''}>
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

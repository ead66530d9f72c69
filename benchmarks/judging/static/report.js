// Sortable tables: a click on a column's title sorts the rows by that column, again to reverse.
// Cells carry their raw value in data-value: numbers sort as numbers, the rest as text.
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, column) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var down = th.getAttribute('data-order') !== 'descending';
      table.querySelectorAll('th').forEach(function (other) { other.removeAttribute('data-order'); });
      th.setAttribute('data-order', down ? 'descending' : 'ascending');
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute('data-value'), y = b.cells[column].getAttribute('data-value');
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
        return down ? -order : order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});

// What a file input holds: whether it is in the document, and its files.
function elementFiles() {
  const files = this.files ? Array.from(this.files) : [];
  return {
    connected: this.isConnected,
    count: files.length,
    names: files.map((f) => f.name),
    sizes: files.map((f) => f.size),
  };
}

// A file directly in sim/, in none of its rooms: reported as such.

// placeholder until the API layer lands
